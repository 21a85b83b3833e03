"""Whole-run encoding benchmark: wpiece vs HF `tokenizers` vs nanotoken.

Engines: `wpiece` (flat ids), `wpiece+offsets`, `wpiece objects` (`encode_batch`,
one `Encoding` per text, as HF's `encode_batch_fast` in `hf`), the two file
readers, and nanotoken.

    python benches/bench_encode.py [--repeats 5] [--hf-repeats 3] [--mb 0]

Each measurement runs in its own process; engines alternate run by run; the
table shows medians, and each engine's ratio to nanotoken as the median of the
ratios within a round (runs seconds apart share most of this host's noise).
Every document's ids, offsets and word ids are compared with HF's
(`parity_hf.py`). Writes benches/results/encode.md
and encode.png.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import parity_hf
from _common import (
    ROOT,
    ensure_corpus,
    head_bytes,
    med,
    median_runs,
    paired_ratio,
    run_child,
)

VOCAB = ROOT / "tests" / "data" / "vocab.txt"

LOAD = """
import os
path = {path!r}
lines = open(path, encoding="utf-8").read().splitlines()
nbytes = sum(len(x.encode()) for x in lines)
"""

ENGINES = {
    "wpiece": """
import wpiece
tok = wpiece.Tokenizer.from_file({vocab!r})
run = lambda: tok.encode_batch_flat(lines, num_threads={threads})[0].size
""",
    "wpiece+offsets": """
import wpiece
tok = wpiece.Tokenizer.from_file({vocab!r})
run = lambda: tok.encode_batch_flat(lines, return_offsets=True, num_threads={threads})[0].size
""",
    "wpiece objects": """
import wpiece
tok = wpiece.Tokenizer.from_file({vocab!r})
run = lambda: sum(len(e.ids) for e in tok.encode_batch(lines, num_threads={threads}))
""",
    "nanotoken": """
import nanotoken
tok = nanotoken.Tokenizer.from_vocab({vocab!r})
run = lambda: int(tok.encode_batch(lines).lengths.sum())
""",
    "wpiece files": """
import wpiece
tok = wpiece.Tokenizer.from_file({vocab!r})
run = lambda: tok.encode_files(path, num_threads={threads})[0].size
""",
    "nanotoken files": """
import nanotoken
tok = nanotoken.Tokenizer.from_vocab({vocab!r})
run = lambda: int(tok.encode_files(nanotoken.TextFileSource(path, separator="\\n")).lengths.sum())
""",
    "hf": """
from tokenizers import BertWordPieceTokenizer
tok = BertWordPieceTokenizer({vocab!r})
enc = getattr(tok._tokenizer, "encode_batch_fast", tok._tokenizer.encode_batch)
run = lambda: sum(len(e.ids) for e in enc(lines))
""",
}

# The headline is what a user pays: one pass over text this process has never
# seen (the warm-up only starts thread pools, on text of its own). A second
# pass over the same text (every cache warm) is reported beside it, labelled.
TIMED = """
import tempfile
full, full_path = lines, path
lines = ["warm up the pools"] * 64
# The file readers warm up on a file of those lines: on the corpus itself
# the timed pass would be the second one.
with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    f.write("\\n".join(lines) + "\\n")
path = f.name
run()
os.unlink(path)
lines, path = full, full_path
t = time.perf_counter()
n_tokens = run()
seconds = time.perf_counter() - t
if {repeat}:
    t = time.perf_counter()
    run()
    again = time.perf_counter() - t
else:
    again = seconds  # no cache: a second pass costs what the first did
RESULT = {"seconds": seconds, "mb_s": nbytes / seconds / 1e6, "tokens_s": n_tokens / seconds,
          "mb_s_repeat": nbytes / again / 1e6}
"""

# A long-running service: warm on the first half of the corpus, then time one
# pass over the second half (text of the same kind, never seen itself).
SERVICE = """
half = len(lines) // 2
full, lines = lines, lines[:half]
run()
lines = full[half:]
nbytes = sum(len(x.encode()) for x in lines)
t = time.perf_counter()
run()
seconds = time.perf_counter() - t
RESULT = {"seconds": seconds, "mb_s": nbytes / seconds / 1e6}
"""

# Engines timed as a service too (the file readers read the whole file).
SERVICE_ENGINES = ("wpiece", "wpiece+offsets", "nanotoken")


def measure(engine: str, path: Path, threads: int, service: bool = False) -> dict:
    env = {"RAYON_NUM_THREADS": str(threads), "RAYON_RS_NUM_CPUS": str(threads)}
    env["OPENBLAS_NUM_THREADS"] = "1"  # numpy's BLAS threads would spin on our cores
    code = (
        LOAD.format(path=str(path))
        + ENGINES[engine].format(vocab=str(VOCAB), threads=threads)
        # HF keeps no cache: a second pass would only cost minutes.
        + (SERVICE if service else TIMED.replace("{repeat}", str(engine != "hf")))
    )
    return run_child(code, env)


def chart(rows: list[tuple[str, int, str, float]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = sorted({(c, t) for c, t, _, _ in rows})
    engines = [e for e in ENGINES if any(r[2] == e for r in rows)]
    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=120)
    width = 0.8 / len(engines)
    for k, e in enumerate(engines):
        xs, ys = [], []
        for g, (c, t) in enumerate(groups):
            v = [r[3] for r in rows if (r[0], r[1], r[2]) == (c, t, e)]
            if v:
                xs.append(g + k * width)
                ys.append(v[0])
        bars = ax.bar(xs, ys, width, label=e)
        ax.bar_label(bars, fmt="%.0f", fontsize=7)
    ax.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))])
    ax.set_xticklabels([f"{c}\n{t} thread{'s' if t > 1 else ''}" for c, t in groups])
    ax.set_ylabel("throughput (MB/s, higher is better)")
    ax.set_title("WordPiece encoding, bert-base-uncased vocab (median of runs)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--hf-repeats", type=int, default=3, help="runs of HF (slow)")
    ap.add_argument("--mb", type=int, default=0, help="use the first N MB of each corpus (0: all)")
    ap.add_argument("--corpora", default="en,multi")
    ap.add_argument("--no-hf", action="store_true", help="skip HF timing (slow), keep parity")
    ap.add_argument("--engines", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--threads", default="1,2", help="thread counts to measure")
    ap.add_argument("--no-parity", action="store_true", help="skip the per-document HF check")
    args = ap.parse_args()
    corpus = ensure_corpus()
    files = {"en": corpus / "en.txt", "multi": corpus / "multi.txt"}
    md = [
        "| corpus | threads | engine | one pass MB/s | M tokens/s | vs nanotoken "
        "| peak RSS MB | service MB/s | service vs nanotoken "
        "| repeated text MB/s | repeated vs nanotoken |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    chart_rows = []
    parity_lines = []
    scaling_lines = []
    for name in args.corpora.split(","):
        path = files[name]
        if args.mb:
            path = head_bytes(path, corpus / f"{name}_{args.mb}mb.txt", args.mb * 1_000_000)
        engines = ["wpiece", "wpiece+offsets", "wpiece objects", "nanotoken"]
        engines += ["wpiece files", "nanotoken files"]
        engines += [] if args.no_hf else ["hf"]
        if args.engines:
            engines = [e for e in args.engines.split(",") if e in ENGINES] + ["nanotoken"] * (
                "nanotoken" not in args.engines.split(",")
            )
        # Every round runs each engine at each thread count, so the ratios to
        # nanotoken and to the engine's own one-thread run pair runs seconds apart.
        thread_counts = [int(t) for t in args.threads.split(",")]
        keys = [(e, t, False) for e in engines for t in thread_counts]
        keys += [(e, t, True) for e in engines if e in SERVICE_ENGINES for t in thread_counts]
        res = median_runs(
            lambda key, p=path: measure(key[0], p, key[1], key[2]),
            keys,
            args.repeats,
            fewer={("hf", t, False): args.hf_repeats for t in thread_counts},
        )
        for threads in thread_counts:
            for e in engines:
                runs = res[(e, threads, False)]
                mb_s = med(runs, "mb_s")
                chart_rows.append((name, threads, e, mb_s))
                nano = res[("nanotoken", threads, False)]
                service = "| - | - "
                if (e, threads, True) in res:
                    warm, nano_warm = res[(e, threads, True)], res[("nanotoken", threads, True)]
                    service = f"| {med(warm, 'mb_s'):.1f} | {paired_ratio(warm, nano_warm):.2f}x "
                md.append(
                    f"| {name} | {threads} | {e} | {mb_s:.1f} | "
                    f"{med(runs, 'tokens_s') / 1e6:.1f} | {paired_ratio(runs, nano):.2f}x | "
                    f"{med(runs, 'peak_rss_mb'):.0f} {service}| "
                    f"{med(runs, 'mb_s_repeat'):.1f} | "
                    f"{paired_ratio(runs, nano, 'mb_s_repeat'):.2f}x |"
                )
                print(md[-1], flush=True)
        if len(thread_counts) > 1:
            top = max(thread_counts)
            for e in engines:
                scale = paired_ratio(res[(e, top, False)], res[(e, 1, False)])
                scaling_lines.append(f"- {name}, {e}: {scale:.2f}x")
                print(scaling_lines[-1], flush=True)
        if args.no_parity:
            continue
        parity_lines.append(parity_hf.line(name, parity_hf.check(path)))
        print(parity_lines[-1], flush=True)
    if args.engines or args.no_parity or args.threads != "1,2":
        return  # a partial run: printed only, the saved results stay whole
    out = ROOT / "benches" / "results"
    out.mkdir(exist_ok=True)
    chart(chart_rows, out / "encode.png")
    text = (
        f"## Encoding (medians of {args.repeats} runs"
        + ("" if args.no_hf else f", HF {args.hf_repeats}")
        + ", each in its own process; vs nanotoken: median of the ratios within a round)\n\n"
        "*One pass* is the headline: the whole corpus once, in a process that has not seen "
        "it (what encoding a dataset costs). *Repeated text* is a second pass in the same "
        "process, every cache warm: a service that sees the same text again, not a "
        "dataset. *Service* warms on the first half of the corpus, then times one pass "
        "over the second half (a long-running process meeting new text of a kind it has "
        "seen).\n\n"
        + "\n".join(md)
        + "\n\nTwo threads over one (median of the ratios within a round):\n\n"
        + "\n".join(scaling_lines)
        + "\n\nParity with HF on every document:\n\n"
        + "\n".join(parity_lines)
        + "\n\nCommand: `python benches/bench_encode.py"
        + (f" --repeats {args.repeats}" if args.repeats != 5 else "")
        + (" --no-hf" if args.no_hf else "")
        + (f" --mb {args.mb}" if args.mb else "")
        + "`\n"
    )
    (out / "encode.md").write_text(text, encoding="utf-8")
    (out / "encode.json").write_text(json.dumps(chart_rows), encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
