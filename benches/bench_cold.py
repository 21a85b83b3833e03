"""Does new text cost more than known text? One cold pass, in eighths.

A fresh process per run loads the tokenizer and then, with no warm-up,
encodes the corpus as eight consecutive calls of an eighth each (by bytes,
cut at a document): the first eighth pays every first-call cost, and any
engine whose speed comes from caches of text it has seen runs slower on the
early eighths. Then it encodes the whole corpus again, as one call (every
cache warm). Engines alternate run by run; medians with min-max; ratios are
the median of the ratios within a round. nanotoken at one thread runs with
`parallel=False`, its fastest single-thread setting. *Load*: importing the
engine and loading the vocab (numpy is loaded before, in every process).

    python benches/bench_cold.py [--repeats 5] [--mb 0] [--corpora en,multi]

Writes benches/results/cold.md and cold.json (cold_<N>mb.* with --mb N).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from _common import ROOT, ensure_corpus, head_bytes, median_runs, paired_ratio, run_child

VOCAB = ROOT / "tests" / "data" / "vocab.txt"
PARTS = 8

# numpy is loaded first in every process: both engines return numpy arrays,
# and a process that encodes to arrays has it loaded already.
LOAD = """
import numpy
lines = open({path!r}, encoding="utf-8").read().splitlines()
sizes = [len(x.encode()) + 1 for x in lines]
nbytes = sum(sizes)
# Eight consecutive slices of about an eighth of the bytes each.
cuts, acc = [0], 0
for i, s in enumerate(sizes):
    acc += s
    if acc >= nbytes * len(cuts) / {parts} and len(cuts) < {parts}:
        cuts.append(i + 1)
cuts.append(len(lines))
"""

ENGINES = {
    "wpiece": """
t = time.perf_counter()
import wpiece
tok = wpiece.Tokenizer.from_file({vocab!r})
load = time.perf_counter() - t
run = lambda docs: tok.encode_batch_flat(docs, num_threads={threads})[0].size
""",
    "nanotoken": """
t = time.perf_counter()
import nanotoken
tok = nanotoken.Tokenizer.from_vocab({vocab!r})
load = time.perf_counter() - t
run = lambda docs: int(tok.encode_batch(docs, parallel={parallel}).lengths.sum())
""",
}

TIMED = """
part_seconds, part_bytes, tokens = [], [], 0
for a, b in zip(cuts, cuts[1:]):
    t = time.perf_counter()
    tokens += run(lines[a:b])
    part_seconds.append(time.perf_counter() - t)
    part_bytes.append(sum(sizes[a:b]))
first = sum(part_seconds)
t = time.perf_counter()
again_tokens = run(lines)
again = time.perf_counter() - t
assert again_tokens == tokens, (again_tokens, tokens)
RESULT = {"load": load, "first": first, "again": again, "mb_s": nbytes / first / 1e6,
          "parts_mb_s": [n / s / 1e6 for n, s in zip(part_bytes, part_seconds)],
          "tokens": tokens}
"""


def measure(engine: str, path: Path, threads: int) -> dict:
    env = {
        "RAYON_NUM_THREADS": str(threads),
        "RAYON_RS_NUM_CPUS": str(threads),
        "OPENBLAS_NUM_THREADS": "1",
    }
    code = (
        LOAD.format(path=str(path), parts=PARTS)
        + ENGINES[engine].format(vocab=str(VOCAB), threads=threads, parallel=threads > 1)
        + TIMED
    )
    return run_child(code, env)


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def summarize(runs: list[dict]) -> dict:
    """Per run: the pass's speed, its slowest eighth against its fastest, and
    the second pass's speed over the first's; medians with min-max."""
    uneven = [max(r["parts_mb_s"]) / min(r["parts_mb_s"]) for r in runs]
    again = [r["first"] / r["again"] for r in runs]
    return {
        "mb_s": [r["mb_s"] for r in runs],
        "uneven": uneven,
        "again": again,
        "parts": [statistics.median(r["parts_mb_s"][k] for r in runs) for k in range(PARTS)],
        "load": [r["load"] for r in runs],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--mb", type=int, default=0, help="the first N MB of each corpus (0: all)")
    ap.add_argument("--corpora", default="en,multi")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--out", default=None, help="default: results/cold, or cold_<N>mb with --mb")
    args = ap.parse_args()
    corpus_dir = ensure_corpus()
    files = {"en": corpus_dir / "en.txt", "multi": corpus_dir / "multi.txt"}
    work = ROOT / "target" / "bench_cold"
    work.mkdir(parents=True, exist_ok=True)
    results: dict = {"repeats": args.repeats, "rows": []}
    out = Path(
        args.out or ROOT / "benches" / "results" / ("cold" + (f"_{args.mb}mb" if args.mb else ""))
    )
    for name in args.corpora.split(","):
        path = files[name]
        if args.mb:
            path = head_bytes(path, work / f"{name}_{args.mb}mb.txt", args.mb * 1_000_000)
        mb = path.stat().st_size / 1e6
        for threads in [int(t) for t in args.threads.split(",")]:
            runs = median_runs(
                lambda e, p=path, t=threads: measure(e, p, t), list(ENGINES), args.repeats
            )
            tokens = {r["tokens"] for rs in runs.values() for r in rs}
            row = {
                "corpus": f"{name} {mb:.0f} MB",
                "threads": threads,
                "engines": {e: summarize(rs) for e, rs in runs.items()},
                "ratio": paired_ratio(runs["wpiece"], runs["nanotoken"]),
                "token_counts": sorted(tokens),
            }
            results["rows"].append(row)
            print(json.dumps(row), flush=True)
    write(results, out)


def write(results: dict, out: Path) -> None:
    out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    lines = [
        "# One cold pass, in eighths",
        "",
        "`python benches/bench_cold.py`: a fresh process per run, no warm-up; the corpus",
        "encoded as eight consecutive calls of an eighth of its bytes each, then once more",
        f"as one call. Medians of {results['repeats']} alternating runs (min-max).",
        "*Uneven*: the fastest eighth's speed over the slowest's, per run (1.00: new text",
        "costs what known text does). *Second pass*: its speed over the first pass's.",
        "*wpiece / nanotoken*: median of the ratios within a round.",
        "",
        "| corpus | threads | engine | first pass MB/s | wpiece / nanotoken | uneven "
        "| second pass | eighths MB/s (medians) | load s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in results["rows"]:
        for e, s in row["engines"].items():
            ratio = f"{row['ratio']:.2f}x" if e == "wpiece" else ""
            parts = " ".join(f"{p:.0f}" for p in s["parts"])
            lines.append(
                f"| {row['corpus']} | {row['threads']} | {e} | {spread(s['mb_s'])} | {ratio} "
                f"| {spread(s['uneven'])} | {spread(s['again'])}x | {parts} "
                f"| {statistics.median(s['load']):.2f} |"
            )
    command = " ".join(["python", "benches/bench_cold.py", *sys.argv[1:]])
    lines += ["", f"Command: `{command}`", ""]
    out.with_suffix(".md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
