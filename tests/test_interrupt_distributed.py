"""Ctrl-C in the middle of a Parquet job on Spark (local[2]) and on Ray: the
call stops within the bound with KeyboardInterrupt and leaves nothing
behind (no staging folder, no output, the old output untouched). The bound
is on the call (until its KeyboardInterrupt is caught): the process's exit
after it also shuts the engine down, which is the engine's own time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from interrupting import BOUND_S, CHILD, DELAY_S

from conftest import EN_FIXTURE

SESSIONS = {
    "spark": """
import os
os.environ["PYSPARK_PYTHON"] = sys.executable
from pyspark.sql import SparkSession
import wpiece.spark
spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
spark.sparkContext.setLogLevel("OFF")
spark.sparkContext.parallelize(range(2), 2).map(lambda _: __import__("wpiece").__name__).collect()
run = lambda *a, **k: wpiece.spark.encode_files_to_parquet(spark, *a, **k)
""",
    "ray": """
import ray, wpiece.ray
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
run = wpiece.ray.encode_files_to_parquet
""",
}


def interrupt_mid_call(code: str) -> tuple[float, str]:
    """Runs ``code`` in a child that prints "ready" before its call and
    "interrupted" on KeyboardInterrupt (then anything, then exits 130);
    SIGINT comes mid-call. Returns the seconds to "interrupted" and the
    next line the child printed."""
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        time.sleep(DELAY_S)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        assert child.stdout.readline().strip() == "interrupted"
        elapsed = time.monotonic() - sent
        after = child.stdout.readline().strip()
        assert child.wait(60) == 130
    finally:
        child.kill()
    return elapsed, after


@pytest.mark.parametrize("engine", sorted(SESSIONS))
def test_ctrl_c_stops_a_parquet_job_and_leaves_nothing(engine: str, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(EN_FIXTURE.read_bytes() * 40)  # about 38 MB: seconds of work
    out = tmp_path / "ids"
    out.mkdir()
    (out / "part-00000.parquet").write_bytes(b"the old set")
    vocab = Path(__file__).parent / "data" / "vocab.txt"
    setup = SESSIONS[engine] + f"tok = wpiece.Tokenizer.from_file({str(vocab)!r})\n"
    call = f"run({str(corpus)!r}, tok, {str(out)!r}, part_bytes=1 << 20, overwrite=True)"
    elapsed, _ = interrupt_mid_call(CHILD.format(setup=textwrap.dedent(setup), call=call))
    assert elapsed < BOUND_S
    time.sleep(1)  # a task cancelled mid-part would show up by now
    left = sorted(n for n in os.listdir(tmp_path) if n != "corpus.txt")
    assert left == ["ids"], left
    assert os.listdir(out) == ["part-00000.parquet"]
    assert (out / "part-00000.parquet").read_bytes() == b"the old set"


COUNTING_CHILD = """
import os, sys, time
import ray, wpiece, wpiece.ray
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
ray.get(ray.remote(lambda: 0).remote())


def counting_tasks():
    # Processes of this Ray (descendants of this process; another test's
    # cluster may still be ending) running a counting task.
    parent, title = {{}}, {{}}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{{pid}}/stat").read()
            parent[int(pid)] = int(stat.rsplit(")", 1)[1].split()[1])
            title[int(pid)] = open(f"/proc/{{pid}}/cmdline", "rb").read()
        except (OSError, ValueError, IndexError):
            pass

    def ours(pid):
        while pid > 1:
            pid = parent.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    return sum(1 for p, t in title.items() if t.startswith(b"ray::count_file_part") and ours(p))


print("ready", flush=True)
try:
    wpiece.ray.count_files({files!r}, part_bytes=4 << 20, fanout=2)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    time.sleep(0.5)  # a cancelled running task stops within 50 ms
    print(counting_tasks(), flush=True)
    sys.exit(130)
print("finished", flush=True)
"""


def test_ctrl_c_cancels_every_counting_task_on_ray(tmp_path: Path) -> None:
    # About 230 MB: seconds of counting left when the signal comes. Parts of
    # 4 MB, not 1: Ray 2.60's driver can abort when a task's result arrives
    # while it is being cancelled (ray-project/ray#54846; CI hit it once with
    # 230 parts of 1 MB finishing about 200 a second), a bug of Ray's own
    # that more, shorter tasks make likelier.
    files = []
    for k in range(4):
        files.append(str(tmp_path / f"c{k}.txt"))
        Path(files[-1]).write_bytes(EN_FIXTURE.read_bytes() * 60)
    elapsed, after = interrupt_mid_call(COUNTING_CHILD.format(files=files))
    assert elapsed < BOUND_S
    assert int(after) == 0  # counting tasks still running
