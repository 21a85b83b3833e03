"""Training report: what vocabulary size buys, as a PNG and a one-page HTML.

Needs matplotlib (``pip install wpiece[report]``).
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import Any

from . import _core
from .documents import PathLike
from .tokenizer import Tokenizer
from .training import TrainingRecord

__all__ = ["REPORT_FILES", "report_files", "write_report"]


def _figure(tok: Tokenizer, record: TrainingRecord) -> Any:  # a matplotlib Figure
    try:
        import matplotlib
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise ImportError("the training report needs matplotlib: pip install wpiece[report]") from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    prefix = tok.settings["continuing_subword_prefix"]
    specials = set(tok.settings["special_tokens"])
    curve = record.tokens_per_word()
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5), dpi=110)

    ax = axes[0][0]
    ax.plot([c[0] for c in curve], [c[1] for c in curve], color="tab:blue", label="training splits")
    fitted = record.fitted_tokens_per_word()
    if fitted is not None:
        label = "fitted vocabulary, training text by longest match"
        ax.plot([len(tok)], [fitted], color="tab:green", marker="*", linestyle="", label=label)
    held = record.held_out_tokens_per_word()
    if held:
        ax.plot(
            [c[0] for c in held],
            [c[1] for c in held],
            color="tab:red",
            marker=".",
            label=f"held-out text, encoded ({100 * record.held_out_fraction:g}% of documents)",
        )
    ax.legend(fontsize=8)
    final = held[-1] if held else curve[-1]
    ax.axvline(final[0], color="tab:red", linestyle="--", linewidth=1)
    ax.annotate(
        f"chosen: {final[0]:,} tokens\n{final[1]:.3f} tokens/word",
        xy=final,
        xytext=(-30, 70),
        textcoords="offset points",
        ha="right",
        fontsize=8,
        arrowprops={"arrowstyle": "->", "color": "tab:red"},
    )
    ax.set_xlabel("vocabulary size (tokens)")
    ax.set_ylabel("tokens per word")
    ax.set_title("Tokens per word by vocabulary size")
    ax.grid(alpha=0.3)

    ax = axes[0][1]
    scores = [m.score for m in record.merges]
    if scores:
        ax.plot(range(1, len(scores) + 1), scores, linewidth=0.8, color="tab:purple")
        if min(scores) > 0:
            ax.set_yscale("log")
    ax.set_xlabel("merge number")
    ylabel = {
        "wordpiece": "score p/(f(x)·f(y))",
        "likelihood": "likelihood gain ΔL",
    }.get(record.score, "pair frequency")
    ax.set_ylabel(ylabel + " (log scale)")
    ax.set_title("Score of each merge")
    ax.grid(alpha=0.3)

    vocab = [t for t in tok.get_vocab() if t not in specials]
    ax = axes[1][0]
    lengths = [len(t[len(prefix) :] if prefix and t.startswith(prefix) else t) for t in vocab]
    if lengths:
        ax.hist(lengths, bins=range(1, max(lengths) + 2), color="tab:green", align="left")
    ax.set_xlabel("token length (characters, without prefix)")
    ax.set_ylabel("number of tokens")
    ax.set_title("Token lengths")
    ax.grid(alpha=0.3)

    ax = axes[1][1]
    sizes, shares = [], []
    n_cont = sum(1 for t in vocab[: record.base_vocab_size] if prefix and t.startswith(prefix))
    n_all = min(len(vocab), record.base_vocab_size - len(specials))
    size = record.base_vocab_size
    for m in record.merges:
        if m.added:
            size += 1
            n_all += 1
            n_cont += bool(prefix) and m.merged.startswith(prefix)
            sizes.append(size)
            shares.append(100 * n_cont / max(1, n_all))
    ax.plot(sizes, shares, color="tab:orange")
    ax.set_ylim(0, 100)
    ax.set_xlabel("vocabulary size (tokens)")
    ax.set_ylabel(f"share of '{prefix}' pieces (%)" if prefix else "share of pieces (%)")
    ax.set_title("Continuation pieces in the vocabulary")
    ax.grid(alpha=0.3)

    fig.suptitle(f"wpiece training report: {record.score} score, {len(tok):,} tokens")
    fig.tight_layout()
    return fig


REPORT_FILES = ("report.png", "report.html")
"""The files of a training report."""


def write_report(tok: Tokenizer, out_dir: PathLike) -> tuple[Path, Path]:
    """Writes ``report.png`` and ``report.html`` for a trained tokenizer, as
    one set (a reader sees both old files or both new ones).

    >>> import tempfile, wpiece
    >>> tok = wpiece.train(wpiece.sample_text_path(), vocab_size=500)
    >>> png, page = write_report(tok, tempfile.mkdtemp())
    >>> png.name, page.name
    ('report.png', 'report.html')
    """
    files = report_files(tok)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _core.write_set_atomic(out, files, [])
    return out / "report.png", out / "report.html"


def report_files(tok: Tokenizer) -> list[tuple[str, bytes]]:
    """The report's files as (name, contents), drawn but not written: a
    folder save writes them with the tokenizer's files, as one set."""
    record = tok.training_record
    if record is None:
        raise ValueError("this tokenizer has no training record: train it with wpiece.train")
    fig = _figure(tok, record)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    png = buf.getvalue()
    import matplotlib.pyplot as plt

    plt.close(fig)

    curve = record.tokens_per_word()
    picks = sorted({curve[0][0], *[c[0] for c in curve[:: max(1, len(curve) // 8)]], curve[-1][0]})
    by_size = {}
    for size, tpw in curve:
        by_size[size] = tpw
    rows = "".join(f"<tr><td>{s:,}</td><td>{by_size[s]:.3f}</td></tr>" for s in picks)
    held_rows = "".join(
        f"<tr><td>{p.vocab_size:,}</td><td>{p.tokens_per_word:.3f}</td>"
        f"<td>{100 * p.whole_word_rate:.1f}%</td><td>{100 * p.unknown_rate:.3f}%</td></tr>"
        for p in record.held_out[:: max(1, len(record.held_out) // 8)] + record.held_out[-1:]
    )
    held_section = (
        f"<h2>Held-out text ({100 * record.held_out_fraction:g}% of documents, "
        f"{record.held_out_words:,} words), encoded</h2><table><tr><th>vocabulary size</th>"
        f"<th>tokens per word</th><th>words kept whole</th><th>unknown words</th></tr>"
        f"{held_rows}</table>"
        if record.held_out
        else "<p>Train with <code>held_out=0.01</code> (<code>--held-out 1%</code>) to see "
        "how the vocabulary encodes text it was not trained on.</p>"
    )
    fitted = record.fitted_tokens_per_word()
    fitted_line = (
        ""
        if fitted is None
        else f"<p>Fitted to longest match ({len(tok):,} tokens, from the {curve[-1][0]:,} the "
        f"merges reached): {fitted:.3f} tokens per word of the training text.</p>"
    )
    longest = sorted(tok.get_vocab(), key=len, reverse=True)[:15]
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>wpiece training report</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 10px;text-align:right}}
img{{max-width:100%}}code{{background:#f3f3f3}}</style></head><body>
<h1>wpiece training report</h1>
<p>Score: <b>{html.escape(record.score)}</b>. Vocabulary: <b>{len(tok):,}</b> tokens
(special tokens and alphabet: {record.base_vocab_size:,}; merges: {len(record.merges):,}).
Corpus: {record.total_words:,} words, {record.initial_tokens:,} characters in words.</p>
<img src="data:image/png;base64,{base64.b64encode(png).decode()}" alt="training report plots">
{held_section}
<h2>Tokens per word in the training splits, by vocabulary size</h2>
<table><tr><th>vocabulary size</th><th>tokens per word</th></tr>{rows}</table>{fitted_line}
<h2>Longest tokens</h2><p>{", ".join(f"<code>{html.escape(t)}</code>" for t in longest)}</p>
</body></html>
"""
    return [("report.png", png), ("report.html", page.encode())]
