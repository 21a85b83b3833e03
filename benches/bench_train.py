"""Whole-run training benchmark: wpiece vs HF WordPieceTrainer vs the pure-Python reference.

    python benches/bench_train.py [--repeats 3] [--quick]
    python benches/bench_train.py --scaling-only [--repeats 7]

Each run is its own process; engines alternate; the table shows medians of wall
time and peak RSS. Writes benches/results/train.md. `--scaling-only` times
counting alone (`WordCounter.add_file`) on one thread and on two, alternating,
and reports the speed-up of each round (two threads' speed over one's, runs
seconds apart) as median and min-max; writes benches/results/count_scaling.md.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from _common import ROOT, ensure_corpus, head_bytes, med, median_runs, run_child

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]

WPIECE = """
import wpiece
t = time.perf_counter()
tok = wpiece.train({path!r}, vocab_size={vocab}, num_threads={threads}, score={score!r})
RESULT = {{"seconds": time.perf_counter() - t, "vocab": len(tok)}}
"""

# The two phases of `wpiece.train`, timed apart in a process of their own:
# counting words (normalize, pre-tokenize, count; parallel) and merging.
WPIECE_PHASES = """
import wpiece
from wpiece import _core
t = time.perf_counter()
c = _core.WordCounter(num_threads={threads}); c.add_file({path!r})
counting = time.perf_counter() - t
t = time.perf_counter()
tok = wpiece.train_from_counts(wpiece.WordCounts._wrap(c), {vocab}, special_tokens={specials!r})
RESULT = {{"seconds": counting, "merging": time.perf_counter() - t, "vocab": len(tok),
          "mb_s": os.path.getsize({path!r}) / counting / 1e6}}
"""

HF = """
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
tk = Tokenizer(models.WordPiece(unk_token="[UNK]"))
tk.normalizer = normalizers.BertNormalizer(lowercase=True)
tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
tr = trainers.WordPieceTrainer(
    vocab_size={vocab}, special_tokens={specials!r}, show_progress=False
)
t = time.perf_counter()
tk.train([{path!r}], tr)
RESULT = {{"seconds": time.perf_counter() - t, "vocab": tk.get_vocab_size()}}
"""

# The reference recomputes everything per merge, so it runs a fixed number of merges.
REFERENCE = """
import sys
sys.path.insert(0, {tests!r})
from wpiece import _core
from reference import train_reference
c = _core.WordCounter(); c.add_file({path!r})
counts = c.items()
t = time.perf_counter()
vocab = train_reference(counts, {vocab}, {specials!r})
RESULT = {{"seconds": time.perf_counter() - t, "vocab": len(vocab)}}
"""

WPIECE_COUNTS = """
import wpiece
from wpiece import _core
c = _core.WordCounter(); c.add_file({path!r})
counts = c.items()
t = time.perf_counter()
tok = wpiece.train_from_counts(counts, {vocab}, special_tokens={specials!r})
RESULT = {{"seconds": time.perf_counter() - t, "vocab": len(tok)}}
"""


def run_trainer(engine: str, path: Path, threads: int) -> dict:
    # No OPENBLAS_NUM_THREADS: training imports no numpy (src/python/numpy_api.rs),
    # so its runs are what a user's are, with no setting of the bench's own.
    env = {"RAYON_NUM_THREADS": str(threads), "RAYON_RS_NUM_CPUS": str(threads)}
    template = {
        "wpiece": WPIECE,
        "wpiece frequency": WPIECE,
        "wpiece phases": WPIECE_PHASES,
        "hf": HF,
    }[engine]
    if engine == "wpiece phases":
        template = "import os\n" + template
    score = "frequency" if engine == "wpiece frequency" else "likelihood"
    code = template.format(
        path=str(path), vocab=30000, threads=threads, specials=SPECIALS, score=score
    )
    return run_child(code, env)


# Counting alone, as the first phase of `wpiece.train` runs it.
COUNTING = """
import os
from wpiece import _core
t = time.perf_counter()
c = _core.WordCounter(num_threads={threads}); c.add_file({path!r})
seconds = time.perf_counter() - t
RESULT = {{"seconds": seconds, "words": len(c), "mb_s": os.path.getsize({path!r}) / seconds / 1e6}}
"""


def counting_scaling(corpus: Path, repeats: int) -> None:
    """Counting on one thread and on two, alternating in fresh processes."""
    rows = []
    for label, path in [("en 103 MB", corpus / "en.txt"), ("multi 49 MB", corpus / "multi.txt")]:

        def count(threads: str, path: Path = path) -> dict:
            env = {"RAYON_NUM_THREADS": threads}
            return run_child(COUNTING.format(path=str(path), threads=int(threads)), env)

        res = median_runs(count, ["1", "2"], repeats)
        one, two = res["1"], res["2"]
        assert all(r["words"] == one[0]["words"] for r in one + two)
        ratios = [b["mb_s"] / a["mb_s"] for a, b in zip(one, two)]
        rows.append(
            f"| {label} | {med(one, 'seconds'):.3f} ({min(r['seconds'] for r in one):.3f}-"
            f"{max(r['seconds'] for r in one):.3f}) | {med(two, 'seconds'):.3f} "
            f"({min(r['seconds'] for r in two):.3f}-{max(r['seconds'] for r in two):.3f}) | "
            f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) |"
        )
        print(rows[-1], flush=True)
    text = (
        f"## Counting words, one thread and two ({repeats} alternating rounds, each run "
        "in its own process)\n\n"
        "`WordCounter.add_file` on the whole file (normalize, pre-tokenize, count), "
        "BERT's options. Seconds: median (min-max). Speed-up: two threads' speed over one "
        "thread's in the same round, median (min-max).\n\n"
        "| corpus | one thread s | two threads s | speed-up |\n|---|---|---|---|\n"
        + "\n".join(rows)
        + f"\n\nCommand: `python benches/bench_train.py --scaling-only --repeats {repeats}`\n"
    )
    out = ROOT / "benches" / "results"
    out.mkdir(exist_ok=True)
    (out / "count_scaling.md").write_text(text, encoding="utf-8")
    print(text)


def run_reference(engine: str, path: Path, vocab: int) -> dict:
    template = REFERENCE if engine == "reference" else WPIECE_COUNTS
    tests = str(ROOT / "tests")
    return run_child(template.format(path=str(path), vocab=vocab, tests=tests, specials=SPECIALS))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, help="rounds (default 3; 7 with --scaling-only)")
    ap.add_argument("--quick", action="store_true", help="10 MB and reference rows only")
    ap.add_argument(
        "--scaling-only", action="store_true", help="counting on one thread against two only"
    )
    args = ap.parse_args()
    corpus = ensure_corpus()
    if args.scaling_only:
        counting_scaling(corpus, args.repeats or 7)
        return
    args.repeats = args.repeats or 3
    work = corpus / "bench"
    work.mkdir(exist_ok=True)
    en10 = corpus / "en10.txt"
    cases = [("en 10 MB", en10, [1, 2])]
    if not args.quick:
        cases += [("en 103 MB", corpus / "en.txt", [1, 2])]
        cases += [("multi 49 MB", corpus / "multi.txt", [2])]

    rows = []
    for label, path, threads_list in cases:
        for threads in threads_list:
            res = median_runs(
                lambda e, p=path, t=threads: run_trainer(e, p, t),
                ["wpiece", "wpiece frequency", "wpiece phases", "hf"],
                args.repeats,
            )
            w, f, ph, h = res["wpiece"], res["wpiece frequency"], res["wpiece phases"], res["hf"]
            rows.append(
                f"| {label} | {threads} | {med(w, 'seconds'):.2f} | "
                f"{med(w, 'seconds') / med(f, 'seconds'):.2f}x | {med(ph, 'seconds'):.2f} "
                f"({med(ph, 'mb_s') / threads:.0f} MB/s a thread) | {med(ph, 'merging'):.2f} | "
                f"{med(h, 'seconds'):.2f} | {med(w, 'seconds') / med(h, 'seconds'):.3f}x | "
                f"{med(w, 'peak_rss_mb'):.0f} | {med(h, 'peak_rss_mb'):.0f} |"
            )
            print(rows[-1], flush=True)

    from wpiece import _core

    ref_rows = []
    for size, merges in ((100_000, 1000), (1_000_000, 1000)):
        path = head_bytes(en10, work / f"en_{size}.txt", size)
        # vocab = specials + alphabet + `merges`
        counter = _core.WordCounter()
        counter.add_file(path)
        items = counter.items()
        alphabet = {w[0] for w, _ in items} | {"##" + ch for w, _ in items for ch in w[1:]}
        vocab = len(SPECIALS) + len(alphabet) + merges
        repeats = 1 if size > 100_000 else args.repeats
        res = median_runs(
            lambda e, p=path, v=vocab: run_reference(e, p, v), ["wpiece", "reference"], repeats
        )
        w, r = res["wpiece"], res["reference"]
        assert w[0]["vocab"] == r[0]["vocab"]
        ref_rows.append(
            f"| {size // 1000} KB | {merges} | {med(w, 'seconds') * 1000:.1f} ms | "
            f"{med(r, 'seconds'):.1f} s | {med(r, 'seconds') / med(w, 'seconds'):.0f}x |"
        )
        print(ref_rows[-1], flush=True)

    out = ROOT / "benches" / "results"
    out.mkdir(exist_ok=True)
    text = (
        f"## Training, vocab 30,000 (medians of {args.repeats} runs, each in its own process)\n\n"
        "`wpiece.train` on the file (count + merge), and its two phases timed apart in a "
        "process of their own (`WordCounter.add_file`, then training on those counts). "
        "Likelihood / frequency: the default score's whole call over `score='frequency'`'s. "
        "Time ratio: wpiece's time over HF's (lower is better).\n\n"
        "| corpus | threads | wpiece s | likelihood / frequency | counting s | merging s | HF s "
        "| wpiece / HF time | wpiece peak MB | HF peak MB |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n"
        + "\n".join(rows)
        + "\n\n## Against the pure-Python reference trainer (same vocab, same merges)\n\n"
        "| corpus | merges | wpiece | reference | reference / wpiece |\n|---|---|---|---|---|\n"
        + "\n".join(ref_rows)
        + "\n\nCommand: `python benches/bench_train.py`\n"
    )
    (out / "train.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
