"""What each Parquet codec of `encode_files_to_parquet` / `encode_to_parquet`
costs (each with its encoding of the ids: bit-packed with no codec or a
fast one, plain for the entropy coders): the ids of 20 MB of English
(encoded once, one thread) written as one
part through the same writer the cluster tasks use, each codec in a fresh
process, alternating, 5 rounds. Beside it, the time to encode that text
(one thread): the part a worker spends writing rather than encoding.

Command: `python benches/bench_parquet_codecs.py [--repeats 5] [--mb 20]`
"""

from __future__ import annotations

import argparse
import json

from _common import ROOT, ensure_corpus, head_bytes, med, run_child

from wpiece._parquet_output import DEFAULT_COMPRESSION, PACKED_WITH

VOCAB = ROOT.parent / "shared" / "data" / "bert-base-uncased" / "vocab.txt"
CODECS = ["none", "lz4", "zstd", "snappy", "gzip", "brotli"]

# One part encoded and written as a cluster task does it (the first call of
# a fresh process, as a task's is), each step timed.
CHILD = """
import os, tempfile
from pathlib import Path
import pyarrow as pa
import wpiece
from wpiece._distributed import encode_part_table, ship
from wpiece._parquet_output import ParquetFolder, write_part
payload = ship(wpiece.Tokenizer.from_file({vocab!r}), unpadded=True)
texts = pa.array(open({path!r}, encoding="utf-8").read().splitlines())
t = time.perf_counter()
table = encode_part_table(payload, texts, None, True, False, False)
encode = time.perf_counter() - t
with tempfile.TemporaryDirectory() as d:
    folder = ParquetFolder(Path(d) / "ids", overwrite=False, compression={codec!r})
    t = time.perf_counter()
    write_part(folder.destination, 0, table)
    write = time.perf_counter() - t
    folder.commit([0])
    size = os.path.getsize(Path(d) / "ids" / "part-00000.parquet")
RESULT = {{"encode_s": encode, "write_s": write, "mb": size / 1e6,
          "text_mb": os.path.getsize({path!r}) / 1e6}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--mb", type=int, default=20)
    args = parser.parse_args()
    corpus = ensure_corpus()
    path = head_bytes(corpus / "en.txt", corpus / f"en_{args.mb}mb.txt", args.mb << 20)
    env = {"RAYON_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}

    def make(codec: str) -> dict:
        return run_child(CHILD.format(vocab=str(VOCAB), path=str(path), codec=codec), env)

    # Each round starts at another codec: a run right after gzip's seconds
    # of compression ran slower, whichever it was.
    runs: dict[str, list[dict]] = {c: [] for c in CODECS}
    for r in range(args.repeats):
        for codec in CODECS[r % len(CODECS) :] + CODECS[: r % len(CODECS)]:
            runs[codec].append(make(codec))
    text_mb = runs["none"][0]["text_mb"]
    encode = med([r for rs in runs.values() for r in rs], "encode_s")
    lines = [
        f"## Parquet codecs: one part of the ids of {text_mb:.0f} MB of English",
        "",
        f"Medians of {args.repeats} alternating runs (each round starting at another codec), "
        "each in a fresh process, one thread. "
        f"Encoding that text took {encode:.3f} s (median over all runs). *Per core / "
        "encoding alone*: the speed of a task that encodes and writes, over encoding alone.",
        "",
        "| codec | ids written as | write s (min-max) | file MB | per core / encoding alone |",
        "|---|---|---|---|---|",
    ]
    for codec in CODECS:
        write = [r["write_s"] for r in runs[codec]]
        w = med(runs[codec], "write_s")
        lines.append(
            f"| {codec}{' (default)' if codec == DEFAULT_COMPRESSION else ''} | "
            f"{'DELTA_BINARY_PACKED' if codec in PACKED_WITH else 'PLAIN'} | {w:.3f} "
            f"({min(write):.3f}-{max(write):.3f}) | {med(runs[codec], 'mb'):.1f} | "
            f"{encode / (encode + w):.2f}x |"
        )
    lines += ["", "Command: `python benches/bench_parquet_codecs.py --repeats 5`"]
    out = ROOT / "benches" / "results" / "parquet_codecs.md"
    out.write_text("\n".join(lines) + "\n")
    (out.with_suffix(".json")).write_text(json.dumps(runs, indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
