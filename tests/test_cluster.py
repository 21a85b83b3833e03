"""wpiece.spark and wpiece.ray on real multi-process clusters that these
tests start and stop: a Spark standalone master with two worker JVMs, each
launched by Spark's own launcher (``spark-class``), and a Ray head with a
second node, each a ``ray start`` process. Counting and Parquet encoding of
files equal one process; a worker killed in the middle of a job is replaced
through the engine's retry, and the output is whole, with nothing else left."""

from __future__ import annotations

import gc
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from distributed_files import (
    Engine,
    check_counts_equal_one_process,
    check_parquet_equals_one_process,
    corpus_files,
    documents,
    no_staging_left,
    read_parts,
    run_killing_a_worker,
    staged_parts,
)

import wpiece
import wpiece.ray
import wpiece.spark

from conftest import hf_bert, wp_bert


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(ready: Any, what: str, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not come up in {seconds} s")
        time.sleep(0.2)


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        return s.connect_ex((host, port)) == 0


def pids_with(text: str) -> list[int]:
    """Processes whose command line holds ``text`` (Linux /proc)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if text.encode() in cmdline:
            pids.append(int(name))
    return pids


def kill_one(pids: list[int]) -> int:
    """Kills the first of ``pids`` and returns it; 0 if there is none left
    (a task's process is named after it only while it runs it)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
        return pid
    return 0


class Processes:
    """Processes started for a cluster, each in its own session, stopped as
    a group (what they started included): by SIGTERM, or at once by SIGKILL
    if not ``graceful`` (a Ray node takes half a minute to end on SIGTERM;
    the tests need nothing of its shutdown)."""

    def __init__(self, logs: Path, graceful: bool = True) -> None:
        self.logs = logs
        self.started: list[subprocess.Popen[bytes]] = []
        self.stop_signal = signal.SIGTERM if graceful else signal.SIGKILL

    def start(self, name: str, args: list[str], env: dict[str, str]) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 - kept open while it runs
        proc = subprocess.Popen(
            args, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.started.append(proc)
        return proc

    def stop(self) -> None:
        for proc in reversed(self.started):
            try:
                os.killpg(proc.pid, self.stop_signal)
            except ProcessLookupError:
                continue
        for proc in self.started:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)


# Spark standalone -------------------------------------------------------------


@pytest.fixture(scope="module")
def spark(tmp_path_factory: Any) -> Iterator[Any]:
    import pyspark
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()
    home = Path(pyspark.__file__).parent
    launcher = str(home / "bin" / "spark-class")
    folder = tmp_path_factory.mktemp("spark-cluster")
    env = {
        **os.environ,
        "SPARK_HOME": str(home),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "PYSPARK_PYTHON": sys.executable,
    }
    procs = Processes(folder)
    port = free_port()
    url = f"spark://127.0.0.1:{port}"
    try:
        master = ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1"]
        web = ["--webui-port", str(free_port())]
        procs.start("master", [launcher, *master, "--port", str(port), *web], env)
        wait_for(lambda: port_open(port), "the Spark master")
        for k in range(2):
            worker = ["org.apache.spark.deploy.worker.Worker", "--cores", "1", "--memory", "1g"]
            where = ["--webui-port", str(free_port()), "--work-dir", str(folder / f"work{k}")]
            procs.start(f"worker{k}", [launcher, *worker, *where, url], env)
        os.environ["PYSPARK_PYTHON"] = sys.executable
        session = (
            SparkSession.builder.master(url)
            .appName("wpiece-cluster-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.executor.cores", "1")
            .config("spark.executor.memory", "512m")
            .config("spark.pyspark.python", sys.executable)
            .getOrCreate()
        )
        session.sparkContext.setLogLevel("ERROR")
        executors = session.sparkContext._jsc.sc().getExecutorMemoryStatus
        wait_for(lambda: executors().size() == 3, "two Spark executors")  # and the driver
        yield session
        session.stop()
    finally:
        procs.stop()


def test_spark_standalone_counts_files_as_one_process(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert spark.sparkContext.master.startswith("spark://")
    check_counts_equal_one_process(Engine(wpiece.spark, spark), corpus_files(tmp_path))
    check_relative_paths(Engine(wpiece.spark, spark), tmp_path, monkeypatch)


def test_spark_standalone_encodes_files_to_parquet_as_one_process(
    spark: Any, tmp_path: Path
) -> None:
    check_parquet_equals_one_process(Engine(wpiece.spark, spark), corpus_files(tmp_path), tmp_path)


def test_a_killed_spark_executor_is_replaced_and_the_output_is_whole(
    spark: Any, tmp_path: Path
) -> None:
    files = corpus_files(tmp_path / "in")
    out = tmp_path / "ids"
    before = pids_with("CoarseGrainedExecutorBackend")
    assert len(before) == 2
    rows = run_killing_a_worker(
        lambda: wpiece.spark.encode_files_to_parquet(spark, files, wp_bert(), out, part_bytes=3000),
        started=lambda: staged_parts(tmp_path) >= 2,
        kill=lambda: kill_one(before),
    )
    check_whole(out, files, rows)
    no_staging_left(tmp_path)
    # The standalone worker launched a new executor in place of the killed one.
    assert before[0] not in pids_with("CoarseGrainedExecutorBackend")


# Ray: a head and a second node ---------------------------------------------------


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory: Any) -> Iterator[str]:
    import ray
    import ray.util

    # Refs of an earlier session left in cycles must not be freed in this
    # one, whose objects take the same ids: they would drop those.
    gc.collect()
    ray.shutdown()
    folder = tmp_path_factory.mktemp("ray-cluster")
    # A cluster for the test alone, with this driver's token auth mode
    # (else one side refuses the other's calls: OwnerDiedError, "InvalidAuthToken"
    # in the raylet's log). A local ray.init() turns token auth on for its
    # process for good (RAY_AUTH_MODE=token in os.environ, the token in
    # ~/.ray/auth_token, which `ray start` reads too); a driver that only
    # connects by address keeps it off, while `ray start` would turn it on.
    # On the address Ray picks for this machine: a driver that ran a local
    # Ray before keeps that address.
    env = {**os.environ, "RAY_AUTH_MODE": os.environ.get("RAY_AUTH_MODE", "disabled")}
    ray_cli = str(Path(sys.executable).parent / "ray")
    port = free_port()
    address = f"{ray.util.get_node_ip_address()}:{port}"
    common = ["--num-cpus", "1", "--disable-usage-stats", "--block"]
    procs = Processes(folder, graceful=False)
    try:
        head = ["start", "--head", "--port", str(port), "--include-dashboard=false"]
        procs.start("head", [ray_cli, *head, *common], env)
        wait_for(lambda: port_open(port, address.rsplit(":", 1)[0]), "the Ray head")
        procs.start("node", [ray_cli, "start", "--address", address, *common], env)
        ray.init(address=address, log_to_driver=False)
        wait_for(lambda: len([n for n in ray.nodes() if n["Alive"]]) == 2, "a second Ray node")
        yield address
    finally:
        ray.shutdown()
        procs.stop()
        # What `ray stop` would do: forget the cluster as the machine's
        # current one, so a later ray.init() starts its own.
        current = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"
        if current.exists() and current.read_text().strip().endswith(f":{port}"):
            current.unlink()


def test_ray_cluster_counts_files_as_one_process(
    ray_cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ray

    assert len(ray.nodes()) == 2
    check_counts_equal_one_process(Engine(wpiece.ray), corpus_files(tmp_path))
    check_relative_paths(Engine(wpiece.ray), tmp_path, monkeypatch)


def test_ray_cluster_encodes_files_to_parquet_as_one_process(
    ray_cluster: str, tmp_path: Path
) -> None:
    check_parquet_equals_one_process(Engine(wpiece.ray), corpus_files(tmp_path), tmp_path)


def test_a_killed_ray_worker_is_retried_and_the_output_is_whole(
    ray_cluster: str, tmp_path: Path
) -> None:
    files = corpus_files(tmp_path / "in")
    out = tmp_path / "ids"
    rows = run_killing_a_worker(
        lambda: wpiece.ray.encode_files_to_parquet(files, wp_bert(), out, part_bytes=3000),
        started=lambda: (
            staged_parts(tmp_path) >= 2 and bool(pids_with("ray::wpiece.write_file_part"))
        ),
        kill=lambda: kill_one(pids_with("ray::wpiece.write_file_part")),
    )
    check_whole(out, files, rows)
    no_staging_left(tmp_path)


def check_relative_paths(engine: Engine, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Paths relative to the driver's folder name the same files on the
    workers, whose own folders differ."""
    monkeypatch.chdir(folder)
    assert engine.count_files("*.txt", part_bytes=20_000) == wpiece.count_words("*.txt")


def check_whole(out: Path, files: list[Path], rows: int) -> None:
    docs = documents(files)
    assert rows == len(docs)
    ids = [r for t in read_parts(out) for r in t.column("input_ids").to_pylist()]
    assert ids == [e.ids for e in hf_bert().encode_batch(docs)]
