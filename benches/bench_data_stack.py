"""Beyond one process: word counting on local Spark and local Ray against
wpiece alone, encode_arrow against encode_batch_flat, the size of WordCounts,
and a projection of counting 1 TB.

    python benches/bench_data_stack.py [--repeats 3] [--mb 0]

Each measurement runs in its own process; engines alternate run by run;
tables show medians. Spark and Ray times are one job each on a session
already started (their start-up is reported apart). Writes
benches/results/data_stack.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from _common import ROOT, ensure_corpus, head_bytes, med, median_runs, run_child

VOCAB = ROOT / "tests" / "data" / "vocab.txt"

COUNT = {
    "wpiece": """
import wpiece
t0 = time.perf_counter()
counts = wpiece.count_words({path!r}, num_threads={workers})
seconds = time.perf_counter() - t0
RESULT = {{"seconds": seconds, "words": len(counts), "start": 0.0}}
""",
    "spark": """
import os, sys
os.environ["PYSPARK_PYTHON"] = sys.executable
t0 = time.perf_counter()
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[{workers}]").config("spark.ui.enabled", "false")
         .config("spark.sql.files.maxPartitionBytes", str(16 << 20)).getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
spark.range(1).collect()
start = time.perf_counter() - t0
import wpiece.spark
t0 = time.perf_counter()
counts = wpiece.spark.count_words(spark.read.text({path!r}), column="value")
seconds = time.perf_counter() - t0
spark.stop()
RESULT = {{"seconds": seconds, "words": len(counts), "start": start}}
""",
    "ray": """
t0 = time.perf_counter()
import ray
ray.init(num_cpus={workers}, include_dashboard=False, log_to_driver=False)
ray.data.range(1).take_all()
start = time.perf_counter() - t0
import wpiece.ray
t0 = time.perf_counter()
ds = ray.data.read_text({path!r}, override_num_blocks=max(2, os.path.getsize({path!r}) >> 24))
counts = wpiece.ray.count_words(ds)
seconds = time.perf_counter() - t0
ray.shutdown()
RESULT = {{"seconds": seconds, "words": len(counts), "start": start}}
""",
}

ENCODE = {
    "encode_batch_flat": """
import wpiece
lines = open({path!r}, encoding="utf-8").read().splitlines()
tok = wpiece.Tokenizer.from_file({vocab!r})
t0 = time.perf_counter()
n = tok.encode_batch_flat(lines, num_threads=1)[0].size
RESULT = {{"seconds": time.perf_counter() - t0, "tokens": int(n)}}
""",
    "encode_arrow": """
import pyarrow as pa, wpiece
array = pa.array(open({path!r}, encoding="utf-8").read().splitlines(), pa.string())
tok = wpiece.Tokenizer.from_file({vocab!r})
t0 = time.perf_counter()
n = len(tok.encode_arrow(array, num_threads=1).values)
RESULT = {{"seconds": time.perf_counter() - t0, "tokens": int(n)}}
""",
}

SIZES = """
import os, wpiece
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
before = rss()
counts = wpiece.WordCounts.load({saved!r})
after = rss()
RESULT = {{"words": len(counts), "memory_bytes": after - before,
          "disk_bytes": os.path.getsize({saved!r})}}
"""

MERGE = """
import wpiece
a = wpiece.WordCounts.load({saved!r})
b = a.copy()
t0 = time.perf_counter()
a.update(b)
RESULT = {{"seconds": time.perf_counter() - t0, "words": len(b)}}
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--mb", type=int, default=0, help="use the first N MB of en (0: all)")
    args = ap.parse_args()
    corpus = ensure_corpus()
    path = corpus / "en.txt"
    if args.mb:
        path = head_bytes(path, corpus / f"en_{args.mb}mb.txt", args.mb * 1_000_000)
    mb = path.stat().st_size / 1e6
    md = [f"## Beyond one process (en, {mb:.0f} MB; medians of {args.repeats} runs)\n"]

    keys = [(e, w) for e in COUNT for w in (1, 2)]
    res = median_runs(
        lambda k: run_child("import os, time\n" + COUNT[k[0]].format(path=str(path), workers=k[1])),
        keys,
        args.repeats,
    )
    md += [
        "### Counting words",
        "",
        "| engine | workers | MB/s | seconds | engine start-up s | word types |",
        "|---|---|---|---|---|---|",
    ]
    for e, w in keys:
        s = med(res[(e, w)], "seconds")
        md.append(
            f"| {e} | {w} | {mb / s:.1f} | {s:.2f} | {med(res[(e, w)], 'start'):.1f} | "
            f"{res[(e, w)][0]['words']} |"
        )
        print(md[-1], flush=True)
    single = mb / med(res[("wpiece", 1)], "seconds")
    rate = {w: {e: mb / med(res[(e, w)], "seconds") for e in COUNT} for w in (1, 2)}

    res = median_runs(
        lambda e: run_child("import time\n" + ENCODE[e].format(path=str(path), vocab=str(VOCAB))),
        list(ENCODE),
        args.repeats,
    )
    md += [
        "",
        "### Encoding an Arrow column against a list of str (one thread, one pass)",
        "",
        "| call | MB/s | M tokens |",
        "|---|---|---|",
    ]
    for e in ENCODE:
        md.append(f"| {e} | {mb / med(res[e], 'seconds'):.1f} | {res[e][0]['tokens'] / 1e6:.1f} |")
        print(md[-1], flush=True)
    assert res["encode_arrow"][0]["tokens"] == res["encode_batch_flat"][0]["tokens"]

    saved = Path("/tmp") / "wpiece_bench_counts.wpc"
    run_child(
        f"import wpiece\nwpiece.count_words({str(path)!r}).save({str(saved)!r})\nRESULT = {{}}"
    )
    size = run_child(SIZES.format(saved=str(saved)))
    merge = run_child("import time\n" + MERGE.format(saved=str(saved)))
    words = size["words"]
    md += [
        "",
        "### WordCounts",
        "",
        f"- {words} word types: {size['memory_bytes'] / words:.0f} bytes per type in memory "
        f"(RSS growth on load), {size['disk_bytes'] / words:.1f} on disk (`save`).",
        f"- Merging two such counts (`a.update(b)`, all words shared): "
        f"{merge['seconds']:.3f} s, {words / merge['seconds'] / 1e6:.1f} M types/s.",
        "",
        "### Projection: counting 1 TB of English text",
        "",
        "From the per-worker rates above (the engine's overhead included, the "
        "driver's merge of one counts per part not; at the rate just measured "
        "it adds seconds, not hours).",
        "",
        "| workers (cores) | wpiece alone | Spark | Ray |",
        "|---|---|---|---|",
    ]
    for n in (1, 8, 64, 512):
        cells = []
        for e in COUNT:
            per_worker = rate[2][e] / 2 if e != "wpiece" else single
            hours = 1e6 / (per_worker * n) / 3600
            cells.append(f"{hours:.1f} h" if hours >= 1 else f"{hours * 60:.0f} min")
        if n > 2:
            cells[0] = "-"
        md.append(f"| {n} | " + " | ".join(cells) + " |")
    md += [
        "",
        "wpiece alone uses one machine's cores (one here); Spark and Ray scale out at "
        "their measured 2-worker rate per worker.",
        "",
        f"Command: `python benches/bench_data_stack.py --repeats {args.repeats}"
        + (f" --mb {args.mb}" if args.mb else "")
        + "`",
        "",
    ]
    text = "\n".join(md)
    print(text)
    if not args.mb:
        (ROOT / "benches" / "results" / "data_stack.md").write_text(text)
        (ROOT / "benches" / "results" / "data_stack.json").write_text(
            json.dumps({"rates": rate, "sizes": size, "merge": merge}, indent=1)
        )


if __name__ == "__main__":
    sys.exit(main())
