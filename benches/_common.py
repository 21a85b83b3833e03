"""Helpers shared by the whole-run benchmark scripts."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS_DIR = Path(os.environ.get("WPIECE_CORPUS_DIR", ROOT.parent / "corpus"))


def ensure_corpus() -> Path:
    """The real corpora from ../shared/corpus/make_corpus.sh (built on first use)."""
    if not (CORPUS_DIR / "en.txt").exists():
        script = ROOT.parent / "shared" / "corpus" / "make_corpus.sh"
        subprocess.run(["bash", str(script), str(CORPUS_DIR)], check=True)
    return CORPUS_DIR


def head_bytes(src: Path, dst: Path, n: int) -> Path:
    """The first n bytes of src, cut at a line end (cached)."""
    if not dst.exists():
        with open(src, "rb") as f:
            data = f.read(n + 100_000)
        dst.write_bytes(data[: data.rfind(b"\n", 0, n + 1) + 1])
    return dst


def run_child(code: str, env: dict[str, str] | None = None, timeout: float = 3600) -> dict:
    """Runs `code` in a fresh interpreter; it must print one JSON line last.
    Peak RSS is the child's own maximum resident set size."""
    wrapper = (
        "import json, resource, time\n" + code + "\nprint(json.dumps({**RESULT, 'peak_rss_mb': "
        "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n"
    )
    full_env = {**os.environ, **(env or {})}
    out = subprocess.run(
        [sys.executable, "-c", wrapper],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def median_runs(
    make, engines: list[str], repeats: int, fewer: dict[str, int] | None = None
) -> dict[str, list[dict]]:
    """Alternates engines run by run (A B A B ...), so noise hits both alike.
    `fewer` caps the runs of slow engines (they take part in the first rounds)."""
    results: dict[str, list[dict]] = {e: [] for e in engines}
    for r in range(repeats):
        for e in engines:
            if r < (fewer or {}).get(e, repeats):
                results[e].append(make(e))
    return results


def paired_ratio(a: list[dict], b: list[dict], key: str = "mb_s") -> float:
    """Median over rounds of a's figure over b's from the same round: on a
    noisy host, runs seconds apart share more of the noise than whole medians."""
    return statistics.median(x[key] / y[key] for x, y in zip(a, b))


def med(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


HELD_BYTES = 2_000_000


def split_held_out(
    corpus: Path, work: Path, name: str, train_bytes: int | None
) -> tuple[Path, Path]:
    """(training part, held-out part) of `corpus`, written to `work`: the
    held-out part is its last HELD_BYTES (whole lines); training takes the
    lines before it from the start, `train_bytes` of them (None: all)."""
    data = corpus.read_bytes()
    cut = data.index(b"\n", len(data) - HELD_BYTES) + 1
    held = work / f"{name}.held.txt"
    held.write_bytes(data[cut:])
    end = cut if train_bytes is None else data.rindex(b"\n", 0, min(train_bytes, cut)) + 1
    train = work / f"{name}.train.txt"
    train.write_bytes(data[:end])
    return train, held
