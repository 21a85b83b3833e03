"""Where two-thread scaling goes: wall time split into CPU work and idle cores.

    python benches/bench_scaling.py [--rounds 5] [--passes 3] [--mb 0]

For each engine and thread count, a fresh process encodes the English corpus
once to warm up, then `--passes` more times, measuring each pass's wall time
and the CPU time of all its threads (user + system). Engines and thread counts
alternate within a round. Two-over-one-thread wall scaling factors exactly as

    scaling = (cores busy at 2 threads / at 1) * (CPU per pass at 1 / at 2)

where "cores busy" is CPU time over wall time: the first factor falls short of
2 by serial work (GIL-held list reading, the final join) and by the host not
giving a second core; the second by extra work with two threads (each thread's
caches learning the chunks the other has seen, memory contention). Ratios are
medians over rounds of ratios within a round. Writes benches/results/scaling.md.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from _common import ROOT, ensure_corpus, head_bytes, med, median_runs, run_child
from bench_encode import ENGINES as ENCODE_ENGINES

VOCAB = ROOT / "tests" / "data" / "vocab.txt"

# The peers as bench_encode.py runs them.
ENGINES = {e: ENCODE_ENGINES[e] for e in ("wpiece", "nanotoken")}

PASSES = """
lines = open({path!r}, encoding="utf-8").read().splitlines()
nbytes = sum(len(x.encode()) for x in lines)
{engine}
run()  # warm-up: thread pools, caches
walls, cpus = [], []
for _ in range({passes}):
    w, c = time.perf_counter(), time.process_time()
    run()
    walls.append(time.perf_counter() - w)
    cpus.append(time.process_time() - c)
import statistics
wall, cpu = statistics.median(walls), statistics.median(cpus)
RESULT = {{"wall": wall, "cpu": cpu, "mb_s": nbytes / wall / 1e6, "busy": cpu / wall}}
"""


def measure(engine: str, threads: int, path: Path, passes: int) -> dict:
    env = {
        "RAYON_NUM_THREADS": str(threads),
        "RAYON_RS_NUM_CPUS": str(threads),
        "OPENBLAS_NUM_THREADS": "1",
    }
    code = PASSES.format(
        path=str(path),
        passes=passes,
        engine=ENGINES[engine].format(vocab=str(VOCAB), threads=threads),
    )
    return run_child(code, env)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--passes", type=int, default=3, help="timed passes per process")
    ap.add_argument("--mb", type=int, default=0, help="use the first N MB (0: all)")
    ap.add_argument("--out", default=str(ROOT / "benches" / "results" / "scaling.md"))
    args = ap.parse_args()
    path = ensure_corpus() / "en.txt"
    if args.mb:
        path = head_bytes(path, path.with_name(f"en_{args.mb}mb.txt"), args.mb << 20)
    runs = [(e, t) for e in ENGINES for t in (1, 2)]
    results = median_runs(lambda key: measure(key[0], key[1], path, args.passes), runs, args.rounds)
    size_mb = path.stat().st_size / 1e6
    lines = [
        f"# Two-thread scaling ({path.name}, {size_mb:.0f} MB, {args.rounds} rounds, "
        f"median of {args.passes} passes after a warm-up)",
        "",
        "Command: `python benches/bench_scaling.py`. Scaling = cores-busy ratio x CPU "
        "efficiency (CPU per pass at 1 thread over at 2); each a median of per-round ratios.",
        "",
        "| engine | MB/s 1 thread | MB/s 2 threads | scaling | cores busy 1 / 2 "
        "| CPU s per pass 1 / 2 | CPU efficiency |",
        "|---|---|---|---|---|---|---|",
    ]
    for e in ENGINES:
        one, two = results[(e, 1)], results[(e, 2)]
        scaling = statistics.median(b["mb_s"] / a["mb_s"] for a, b in zip(one, two))
        efficiency = statistics.median(a["cpu"] / b["cpu"] for a, b in zip(one, two))
        lines.append(
            f"| {e} | {med(one, 'mb_s'):.1f} | {med(two, 'mb_s'):.1f} | {scaling:.2f}x "
            f"| {med(one, 'busy'):.2f} / {med(two, 'busy'):.2f} "
            f"| {med(one, 'cpu'):.3f} / {med(two, 'cpu'):.3f} | {efficiency:.2f} |"
        )
    lines.append("")
    lines.append("Per round (MB/s at 1 / 2 threads):")
    for e in ENGINES:
        pairs = ", ".join(
            f"{a['mb_s']:.0f}/{b['mb_s']:.0f}" for a, b in zip(results[(e, 1)], results[(e, 2)])
        )
        lines.append(f"- {e}: {pairs}")
    text = "\n".join(lines) + "\n"
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
