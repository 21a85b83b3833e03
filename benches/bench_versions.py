"""Before/after benchmark: this checkout against another build of wpiece.

    python benches/bench_versions.py --before /path/to/site-packages [--repeats 5]

Build the other version once, for example from a git revision:

    git worktree add /tmp/before REV
    (cd /tmp/before && maturin build --release -o dist)
    pip install --no-deps --target /tmp/before/site /tmp/before/dist/*.whl

Each measurement runs in its own process (the other build comes first on
its `PYTHONPATH`); builds alternate run by run, and each ratio is the median
of the after/before ratios within a round. Encoding: one pass over text the
process has never seen (`encode_batch_flat`, 1 and 2 threads) on 10 MB of
English and 10 MB of multilingual text, and the same pass with offsets;
`encode_batch` (Encodings) and `encode_batch_numpy` (padded columns).
Training: `train` on the English 10 MB file to 8k, `train_from_iterator` on
it to 30k (likelihood score) and 8k (textbook score). Writes benches/results/versions.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from _common import ROOT, ensure_corpus, head_bytes, med, run_child

VOCAB = ROOT / "tests" / "data" / "vocab.txt"

ENCODE = """
import wpiece
lines = open({path!r}, encoding="utf-8").read().splitlines()
nbytes = sum(len(x.encode()) for x in lines)
tok = wpiece.Tokenizer.from_file({vocab!r})
where = wpiece.__file__
tok.encode_batch_flat(["warm up the pools"] * 64, num_threads={threads})
t = time.perf_counter()
tok.encode_batch_flat(lines, num_threads={threads}, return_offsets={offsets})
seconds = time.perf_counter() - t
RESULT = {{"seconds": seconds, "mb_s": nbytes / seconds / 1e6, "module": where}}
"""

OBJECTS = """
import wpiece
lines = open({path!r}, encoding="utf-8").read().splitlines()[:{rows}]
nbytes = sum(len(x.encode()) for x in lines)
tok = wpiece.Tokenizer.from_file({vocab!r})
where = wpiece.__file__
tok.encode_batch(["warm up the pools"] * 64)
t = time.perf_counter()
out = {call}
seconds = time.perf_counter() - t
RESULT = {{"seconds": seconds, "mb_s": nbytes / seconds / 1e6, "module": where}}
"""

TRAIN_FILE = """
import wpiece
where = wpiece.__file__
t = time.perf_counter()
tok = wpiece.train({path!r}, {size}, score={score!r})
seconds = time.perf_counter() - t
RESULT = {{"seconds": seconds, "vocab": len(tok.get_vocab()), "module": where}}
"""

TRAIN = """
import wpiece
lines = open({path!r}, encoding="utf-8").read().splitlines()
where = wpiece.__file__
t = time.perf_counter()
tok = wpiece.train_from_iterator(lines, {size}, score={score!r})
seconds = time.perf_counter() - t
RESULT = {{"seconds": seconds, "vocab": len(tok.get_vocab()), "module": where}}
"""


def measure(build: str, before: Path, code: str, threads: int) -> dict:
    env = {
        "RAYON_NUM_THREADS": str(threads),
        "OPENBLAS_NUM_THREADS": "1",
        "PYTHONPATH": str(before) if build == "before" else "",
    }
    r = run_child(code, env)
    # The child must have imported the build it was meant to.
    assert (str(before) in r["module"]) == (build == "before"), r["module"]
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True, help="site dir of the other build")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--train-repeats", type=int, default=3)
    args = ap.parse_args()
    corpus = ensure_corpus()
    en = head_bytes(corpus / "en.txt", corpus / "en10.txt", 10_000_000)
    multi = head_bytes(corpus / "multi.txt", corpus / "multi10.txt", 10_000_000)

    cases: list[tuple[str, str, int, str]] = []
    for name, path in (("en 10 MB", en), ("multi 10 MB", multi)):
        for threads in (1, 2):
            for offsets in (False, True):
                label = f"encode {name}, {threads} thread{'s' * (threads > 1)}"
                label += ", offsets" if offsets else ""
                code = ENCODE.format(
                    path=str(path), vocab=str(VOCAB), threads=threads, offsets=offsets
                )
                cases.append((label, "mb_s", threads, code))
    # The batch forms that build objects or arrays: Encodings (rows of one
    # flat batch) and padded numpy columns, as transformers asks for them.
    for label, rows, call in (
        ("encode_batch (Encodings) en 10 MB", 10**9, "tok.encode_batch(lines)"),
        (
            "encode_batch_numpy en, 20k lines, truncated and padded to 128",
            20000,
            'tok.encode_batch_numpy(lines, padding="max_length", truncation=True, max_length=128)',
        ),
    ):
        code = OBJECTS.format(path=str(en), rows=rows, vocab=str(VOCAB), call=call)
        cases.append((label, "mb_s", 2, code))
    code = TRAIN_FILE.format(path=str(en), size=8000, score="likelihood")
    cases.append(("train from the en 10 MB file to 8k, likelihood", "seconds", 2, code))
    for size, score in ((30000, "likelihood"), (8000, "wordpiece")):
        code = TRAIN.format(path=str(en), size=size, score=score)
        cases.append((f"train en 10 MB to {size // 1000}k, {score}", "seconds", 2, code))

    results: dict[str, dict[str, list[dict]]] = {c[0]: {"before": [], "after": []} for c in cases}
    for r in range(args.repeats):
        for label, key, threads, code in cases:
            if key == "seconds" and r >= args.train_repeats:
                continue
            for build in ("before", "after"):
                results[label][build].append(measure(build, args.before, code, threads))
            print(label, json.dumps(results[label]["after"][-1]), flush=True)

    lines = [
        "| case | before | after | speed after / before (paired median) |",
        "|---|---:|---:|---:|",
    ]
    table = {}
    for label, key, _, _ in cases:
        b, a = results[label]["before"], results[label]["after"]
        # Above 1: the new build is faster (MB/s up, or seconds down).
        if key == "mb_s":
            ratio = statistics.median(x[key] / y[key] for x, y in zip(a, b))
        else:
            ratio = statistics.median(y[key] / x[key] for x, y in zip(a, b))
        unit = "MB/s" if key == "mb_s" else "s"
        lines.append(
            f"| {label} | {med(b, key):.1f} {unit} | {med(a, key):.1f} {unit} | {ratio:.3f} |"
        )
        table[label] = {"before": med(b, key), "after": med(a, key), "ratio": ratio, "key": key}
    out = ROOT / "benches" / "results" / "versions.md"
    out.write_text(
        "# Before/after\n\n"
        "`python benches/bench_versions.py --before SITE` (one run; fresh process per "
        "measurement, builds alternating, medians; encoding is one pass over text the "
        "process has never seen, in MB/s; training in seconds; the ratio is speed, above 1 "
        "when the new build is faster).\n\n" + "\n".join(lines) + "\n"
    )
    (out.with_suffix(".json")).write_text(json.dumps(table, indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
