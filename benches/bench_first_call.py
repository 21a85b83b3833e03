"""What a process's first encoding call costs, and a small batch's.

A fresh process per run loads the tokenizer, then times its first call on
a batch of one short text (every first-use cost: thread pool, per-thread
caches, array module hooks), a second call on the same text, and then the
mean of 2000 more calls (what serving one text at a time pays a call).
Engines alternate run by run, one thread each (nanotoken with
`parallel=False`, HF's `encode_batch_fast`); medians with min-max.

    python benches/bench_first_call.py [--repeats 8]

Writes benches/results/first_call.md. To time another build of wpiece, put
its package first on PYTHONPATH: the child processes inherit it.
"""

from __future__ import annotations

import argparse
import statistics

from _common import ROOT, median_runs, run_child

VOCAB = ROOT / "tests" / "data" / "vocab.txt"
JSON = ROOT / "tests" / "data" / "tokenizer.json"
TEXT = "The quick brown fox jumps over the lazy dog, twice."

ENGINES = {
    "wpiece": """
import numpy, wpiece
tok = wpiece.Tokenizer.from_file({vocab!r})
run = lambda: tok.encode_batch_flat([{text!r}], num_threads=1)
""",
    "nanotoken": """
import numpy, nanotoken
tok = nanotoken.Tokenizer.from_vocab({vocab!r})
run = lambda: tok.encode_batch([{text!r}], parallel=False)
""",
    "hf": """
import numpy
from tokenizers import Tokenizer
tok = Tokenizer.from_file({json!r})
tok.no_truncation()
tok.no_padding()
run = lambda: tok.encode_batch_fast([{text!r}])
""",
}

TIMED = """
t = time.perf_counter(); run(); first = time.perf_counter() - t
t = time.perf_counter(); run(); second = time.perf_counter() - t
t = time.perf_counter()
for _ in range(2000):
    run()
warm = (time.perf_counter() - t) / 2000
RESULT = {"first_ms": first * 1e3, "second_ms": second * 1e3, "warm_us": warm * 1e6}
"""


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=8)
    args = ap.parse_args()
    env = {"RAYON_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    runs = median_runs(
        lambda e: run_child(
            ENGINES[e].format(vocab=str(VOCAB), json=str(JSON), text=TEXT) + TIMED, env
        ),
        list(ENGINES),
        args.repeats,
    )
    lines = [
        "# A process's first encoding call",
        "",
        f"`python benches/bench_first_call.py --repeats {args.repeats}`: a fresh process per "
        "run loads the tokenizer, then encodes a batch of one short text: a first call, a "
        "second, then 2000 more (their mean: *warm call*). One thread. Medians (min-max) of "
        "the runs, engines alternating.",
        "",
        "| engine | first call ms | second call ms | warm call us |",
        "|---|---|---|---|",
    ]
    for engine, rows in runs.items():
        first = [r["first_ms"] for r in rows]
        second = [r["second_ms"] for r in rows]
        warm = [r["warm_us"] for r in rows]
        lines.append(f"| {engine} | {spread(first)} | {spread(second)} | {spread(warm)} |")
        print(engine, spread(first), spread(second), spread(warm))
    (ROOT / "benches" / "results" / "first_call.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
