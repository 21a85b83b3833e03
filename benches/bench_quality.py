"""Vocabulary quality on held-out text: what a trained vocabulary does to text
it has not seen, for each score of wpiece and for HF's WordPieceTrainer.

    python benches/bench_quality.py            # en 10 MB, en 101 MB, multi 47 MB
    python benches/bench_quality.py --quick    # en 10 MB only

Held-out text: the last 2 MB of each corpus (whole lines), never trained on;
the training corpora are the lines before it (en 10 MB is a prefix of en).
Each training runs in its own fresh process. wpiece trains once per corpus
and score to the largest size and is measured at every size by cutting the
vocabulary to its first n tokens (exactly the vocabulary training to n gives),
except with fit=True, which trains once per size, as HF does. Extended
rows start from a 4k vocabulary trained (default score, at most 1,000
characters) on the other
corpus (English from multilingual, multilingual from English) and extend it
on this one to each size (`initial=`): every base token keeps its id, and
the new ones are chosen on this corpus. Every
vocabulary is measured by the same encoder (`Tokenizer.stats`, the BERT
pipeline, identical to HF's). Training time is the whole call (counting and
merging) at the largest size.
Writes benches/results/quality.{md,json,png}.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import ROOT, ensure_corpus, run_child, split_held_out  # noqa: E402

SIZES = [8000, 16000, 30000]
RESULTS = ROOT / "benches" / "results"

# (label, keyword arguments of wpiece.train)
WPIECE = [
    ("wpiece likelihood (default)", {"score": "likelihood"}),
    ("wpiece wordpiece (textbook)", {"score": "wordpiece"}),
    ("wpiece wordpiece, min_frequency=10", {"score": "wordpiece", "min_frequency": 10}),
    ("wpiece frequency (BPE)", {"score": "frequency"}),
    ("wpiece likelihood, fit=True", {"score": "likelihood", "fit": True}),
    ("wpiece frequency, fit=True", {"score": "frequency", "fit": True}),
]
# Extended from the other corpus's vocabulary of this size (default score).
BASE_SIZE = 4000
EXTENDED = [
    ("wpiece likelihood, extended", {"score": "likelihood"}),
    ("wpiece likelihood, extended, fit=True", {"score": "likelihood", "fit": True}),
]
HF = "HF WordPieceTrainer"

MEASURE = """
def measure(tok, held_path):
    held = open(held_path, encoding='utf-8').read().splitlines()
    return tok.stats(held)
"""

WPIECE_CHILD = (
    MEASURE
    + """
import wpiece, warnings
warnings.simplefilter('ignore')
RESULT = {'sizes': {}}
if KW.get('fit'):  # a fitted vocabulary is not a prefix of a larger one
    for n in SIZES:
        t = time.perf_counter()
        tok = wpiece.train(TRAIN, n, **KW)
        RESULT['seconds'] = time.perf_counter() - t  # at the largest size, the last one
        s = measure(tok, HELD)
        RESULT['sizes'][n] = [s.tokens_per_word, s.whole_word_rate, s.unknown_rate]
else:
    t = time.perf_counter()
    tok = wpiece.train(TRAIN, max(SIZES), **KW)
    RESULT['seconds'] = time.perf_counter() - t
    vocab = list(tok.get_vocab())
    for n in SIZES:
        s = measure(wpiece.Tokenizer(vocab[:n]), HELD)
        RESULT['sizes'][n] = [s.tokens_per_word, s.whole_word_rate, s.unknown_rate]
"""
)

BASE_CHILD = """
import wpiece, warnings
warnings.simplefilter('ignore')
# At most 1,000 characters: room for merges even in a multilingual base.
wpiece.train(TRAIN, BASE_SIZE, limit_alphabet=1000).save(OUT)
RESULT = {}
"""

# Extension trains per size: the base's tokens come first whatever the size.
EXTEND_CHILD = (
    MEASURE
    + """
import wpiece, warnings
warnings.simplefilter('ignore')
RESULT = {'sizes': {}, 'lengths': {}}
for n in SIZES:
    t = time.perf_counter()
    tok = wpiece.train(TRAIN, n, initial=BASE, **KW)
    RESULT['seconds'] = time.perf_counter() - t  # at the largest size, the last one
    s = measure(tok, HELD)
    RESULT['sizes'][n] = [s.tokens_per_word, s.whole_word_rate, s.unknown_rate]
    RESULT['lengths'][n] = len(tok)
"""
)

# How far any vocabulary of n tokens could go on this held-out text, as an
# estimate: give every slot left after the special tokens and the alphabet
# (its single characters) to a whole word, the training corpus's most
# frequent ones; the held-out words outside them need at least two tokens.
CEILING_CHILD = """
import wpiece
train = wpiece.count_words(TRAIN)
held = wpiece.count_words(HELD).items()
alphabet = {ch for w, _ in train.items() for ch in w}
total = sum(c for _, c in held)
ranked = [w for w, _ in train.most_common()]
RESULT = {'alphabet': len(alphabet), 'sizes': {}}
for n in SIZES:
    slots = n - 5 - len(alphabet)
    whole = set(ranked[:max(slots, 0)])
    split = sum(c for w, c in held if w not in whole) / total
    RESULT['sizes'][n] = None if slots <= 0 else [1 + split, 1 - split]
"""

# Not a trainer: the fitted vocabulary of the held-out text itself, measured
# on that same text. No trainer sees the text it will be judged on, so this
# is about as far as fitting can go on it (in-sample).
ORACLE_CHILD = (
    MEASURE
    + """
import wpiece, warnings
warnings.simplefilter('ignore')
RESULT = {'sizes': {}}
for n in SIZES:
    s = measure(wpiece.train(HELD, n, fit=True), HELD)
    RESULT['sizes'][n] = [s.tokens_per_word, s.whole_word_rate]
"""
)

HF_CHILD = (
    MEASURE
    + """
import wpiece
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
hf = Tokenizer(models.WordPiece(unk_token='[UNK]'))
hf.normalizer = normalizers.BertNormalizer(lowercase=True)
hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
trainer = trainers.WordPieceTrainer(vocab_size=SIZE, show_progress=False,
    special_tokens=['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'])
t = time.perf_counter()
hf.train([TRAIN], trainer)
seconds = time.perf_counter() - t
vocab = [w for w, _ in sorted(hf.get_vocab().items(), key=lambda x: x[1])]
s = measure(wpiece.Tokenizer(vocab), HELD)
RESULT = {'seconds': seconds, 'stats': [s.tokens_per_word, s.whole_word_rate, s.unknown_rate]}
"""
)

BERT_CHILD = (
    MEASURE
    + """
import wpiece
s = measure(wpiece.Tokenizer.from_file(VOCAB), HELD)
RESULT = {'stats': [s.tokens_per_word, s.whole_word_rate, s.unknown_rate]}
"""
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="en 10 MB only")
    args = ap.parse_args()
    corpus_dir = ensure_corpus()
    work = corpus_dir / "quality"
    work.mkdir(exist_ok=True)
    corpora = [("en 10 MB", corpus_dir / "en.txt", 10_000_000)]
    if not args.quick:
        corpora += [
            ("en 101 MB", corpus_dir / "en.txt", None),
            ("multi 47 MB", corpus_dir / "multi.txt", None),
        ]
    vocab_txt = ROOT / "tests" / "data" / "vocab.txt"
    results: dict = {"sizes": SIZES, "base_size": BASE_SIZE, "corpora": {}}
    bases = base_vocabularies(corpus_dir, work, quick=args.quick)
    for label, path, nbytes in corpora:
        name = label.replace(" ", "_")
        train, held = split_held_out(path, work, name, nbytes)
        head = f"TRAIN={str(train)!r}\nHELD={str(held)!r}\nSIZES={SIZES!r}\n"
        rows: dict = {}
        for tlabel, kw in WPIECE:
            r = run_child(head + f"KW={kw!r}\n" + WPIECE_CHILD)
            rows[tlabel] = {
                "seconds": r["seconds"],
                "sizes": {int(n): v for n, v in r["sizes"].items()},
            }
            print(label, tlabel, f"{r['seconds']:.1f} s", r["sizes"], flush=True)
        base_label, base_path = bases["multi" if label.startswith("en") else "en"]
        for tlabel, kw in EXTENDED:
            r = run_child(head + f"KW={kw!r}\nBASE={str(base_path)!r}\n" + EXTEND_CHILD)
            rows[tlabel] = {
                "seconds": r["seconds"],
                "sizes": {int(n): v for n, v in r["sizes"].items()},
                "lengths": {int(n): v for n, v in r["lengths"].items()},
                "base": base_label,
            }
            print(label, tlabel, f"{r['seconds']:.1f} s", r["sizes"], r["lengths"], flush=True)
        hf: dict = {"seconds": None, "sizes": {}}
        for n in SIZES:
            r = run_child(head + f"SIZE={n}\n" + HF_CHILD)
            hf["sizes"][n] = r["stats"]
            hf["seconds"] = r["seconds"]  # at the largest size, the last one
            print(label, HF, n, f"{r['seconds']:.1f} s", r["stats"], flush=True)
        rows[HF] = hf
        entry: dict = {"train_bytes": train.stat().st_size, "rows": rows}
        ceiling = run_child(head + CEILING_CHILD)
        entry["ceiling"] = {int(n): v for n, v in ceiling["sizes"].items()}
        print(label, "ceiling", ceiling, flush=True)
        oracle = run_child(head + ORACLE_CHILD)
        entry["oracle"] = {int(n): v for n, v in oracle["sizes"].items()}
        print(label, "oracle", oracle, flush=True)
        if label.startswith("en"):
            entry["bert-base-uncased"] = run_child(
                head + f"VOCAB={str(vocab_txt)!r}\n" + BERT_CHILD
            )["stats"]
        results["corpora"][label] = entry
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "quality.json").write_text(json.dumps(results, indent=1))
    write_markdown(results)
    write_plot(results)


def base_vocabularies(corpus_dir: Path, work: Path, quick: bool) -> dict:
    """For each corpus, the BASE_SIZE vocabulary the other corpus's rows
    extend: (label, tokenizer.json path), trained on its training part."""
    nbytes = 10_000_000 if quick else None
    bases = {}
    for key, file in [("en", "en.txt"), ("multi", "multi.txt")]:
        train, _ = split_held_out(corpus_dir / file, work, f"{key}_base", nbytes)
        out = work / f"{key}_base_{BASE_SIZE}.json"
        run_child(f"TRAIN={str(train)!r}\nOUT={str(out)!r}\nBASE_SIZE={BASE_SIZE}\n" + BASE_CHILD)
        mb = train.stat().st_size / 1e6
        bases[key] = (f"{key} {mb:.0f} MB, {BASE_SIZE // 1000}k", out)
    return bases


def write_markdown(results: dict) -> None:
    lines = [
        "# Vocabulary quality on held-out text",
        "",
        "`python benches/bench_quality.py`: held-out text is the last 2 MB of each corpus,",
        "never trained on. Tokens per word (lower is better) and words kept whole, by the",
        "same encoder for every vocabulary; in brackets, the ratio to HF WordPieceTrainer",
        "at the same size. Training time: the whole call at 30k, own process each.",
        f"Extended rows start from the other corpus's {results['base_size'] // 1000}k "
        "vocabulary (named below each table) and grow it on this corpus to each size; "
        "a cell is blank where the base plus this corpus's new characters already "
        "pass that size.",
        "",
    ]
    for label, entry in results["corpora"].items():
        hf = entry["rows"][HF]["sizes"]
        lines += [f"## {label} ({entry['train_bytes'] / 1e6:.0f} MB trained on)", ""]
        head = "| trainer | " + " | ".join(f"{n // 1000}k tokens/word" for n in SIZES)
        head += " | " + " | ".join(f"{n // 1000}k whole" for n in SIZES) + " | time at 30k |"
        lines += [head, "|---" * (2 * len(SIZES) + 2) + "|"]
        for tlabel, row in entry["rows"].items():
            over = {n for n in SIZES if row.get("lengths", {}).get(n, n) > n}
            cells = []
            for n in SIZES:
                tpw = row["sizes"][n][0]
                cells.append("" if n in over else f"{tpw:.3f} ({tpw / hf[n][0]:.3f}x)")
            cells += ["" if n in over else f"{100 * row['sizes'][n][1]:.1f}%" for n in SIZES]
            secs = row["seconds"]
            lines.append(f"| {tlabel} | " + " | ".join(cells) + f" | {secs:.1f} s |")
        ceiling = entry.get("ceiling", {})
        if any(ceiling.values()):
            parts = [
                f"{n // 1000}k: {v[0]:.3f} ({v[0] / hf[n][0]:.3f}x HF), {100 * v[1]:.1f}% whole"
                for n, v in ceiling.items()
                if v
            ]
            lines += [
                "",
                "Ceiling estimate: with every slot after the special tokens and the alphabet "
                "given to a whole word (the training text's most frequent ones), the other "
                "held-out words need at least two tokens each, so no vocabulary of that size "
                "is likely to go below: " + "; ".join(parts) + ".",
            ]
        oracle = entry.get("oracle", {})
        if oracle:
            parts = [
                f"{n // 1000}k: {v[0]:.3f} ({v[0] / hf[n][0]:.3f}x HF), {100 * v[1]:.1f}% whole"
                for n, v in oracle.items()
            ]
            lines += [
                "",
                "Oracle, not a trainer: `fit=True` trained on the held-out text itself and "
                "measured on it, what fitting reaches on a text it has seen whole: "
                + "; ".join(parts)
                + ".",
            ]
        based = {row["base"] for row in entry["rows"].values() if "base" in row}
        if based:
            lines += ["", "Extended rows start from the vocabulary of " + ", ".join(based) + "."]
        if "bert-base-uncased" in entry:
            b = entry["bert-base-uncased"]
            lines += [
                "",
                f"Reference: bert-base-uncased's own 30,522-token vocab gives {b[0]:.3f} "
                f"tokens/word and keeps {100 * b[1]:.1f}% of words whole on this held-out text.",
            ]
        lines.append("")
    (RESULTS / "quality.md").write_text("\n".join(lines))
    print("\n".join(lines))


def write_plot(results: dict) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot")
        return
    corpora = list(results["corpora"].items())
    fig, axes = plt.subplots(1, len(corpora), figsize=(5.2 * len(corpora), 4.2), dpi=110)
    axes = axes if len(corpora) > 1 else [axes]
    for ax, (label, entry) in zip(axes, corpora):
        for tlabel, row in entry["rows"].items():
            kept = [n for n in SIZES if row.get("lengths", {}).get(n, n) <= n]
            ys = [row["sizes"][n][0] for n in kept]
            style = "--" if tlabel == HF else "-"
            ax.plot([n / 1000 for n in kept], ys, style, marker="o", label=tlabel)
        if "bert-base-uncased" in entry:
            ax.axhline(
                entry["bert-base-uncased"][0],
                color="grey",
                linestyle=":",
                label="bert-base-uncased vocab",
            )
        ax.set_yscale("log")
        ax.set_title(f"{label}: held-out text")
        ax.set_xlabel("vocabulary size (thousands)")
        ax.set_ylabel("tokens per word (log scale, lower is better)")
        ax.grid(alpha=0.3, which="both")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(RESULTS / "quality.png")


if __name__ == "__main__":
    main()
