"""Ctrl-C stops every long call within about a second (KeyboardInterrupt) and
leaves nothing behind. Each case runs in a child process that says when it is
about to start the long call; the parent sends SIGINT half a second later and
times how long the child takes to exit."""

from __future__ import annotations

import gzip
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from interrupting import BOUND_S, interrupt

from conftest import EN_FIXTURE, VOCAB_TXT

# About 1.2 GB of text by reference (no memory for copies): many seconds of work.
DOCS = f"""
docs = open({str(EN_FIXTURE)!r}, encoding="utf-8").read().splitlines()
docs = docs * (1_200_000_000 // sum(map(len, docs)))
tok = wpiece.Tokenizer.from_file({str(VOCAB_TXT)!r})
"""


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_encode_flat_stops_on_ctrl_c(tmp_path: Path, threads: int) -> None:
    elapsed, _ = interrupt(DOCS, f"tok.encode_batch_flat(docs, num_threads={threads})", tmp_path)
    assert elapsed < BOUND_S


def test_batch_encode_to_encodings_stops_on_ctrl_c(tmp_path: Path) -> None:
    elapsed, _ = interrupt(DOCS, "tok.encode_batch(docs)", tmp_path)
    assert elapsed < BOUND_S


def test_batch_encode_numpy_stops_on_ctrl_c(tmp_path: Path) -> None:
    elapsed, _ = interrupt(DOCS, "tok.encode_batch_numpy(docs[:3_000_000])", tmp_path)
    assert elapsed < BOUND_S


def big_file(tmp_path: Path) -> Path:
    """About 400 MB of real English lines, written in large blocks."""
    block = EN_FIXTURE.read_bytes()
    path = tmp_path / "big.txt"
    with path.open("wb") as f:
        for _ in range(400_000_000 // len(block)):
            f.write(block)
    return path


def test_file_encode_stops_on_ctrl_c(tmp_path: Path) -> None:
    path = big_file(tmp_path)
    setup = f"tok = wpiece.Tokenizer.from_file({str(VOCAB_TXT)!r})"
    elapsed, _ = interrupt(setup, f"tok.encode_files({str(path)!r}, num_threads=1)", tmp_path)
    assert elapsed < BOUND_S


@pytest.mark.parametrize("threads", [1, 2])
def test_counting_a_file_stops_on_ctrl_c(tmp_path: Path, threads: int) -> None:
    # On two threads the file is read in pieces, each thread reading its own.
    path = big_file(tmp_path)
    elapsed, _ = interrupt(
        "", f"wpiece.train({str(path)!r}, vocab_size=1000, num_threads={threads})", tmp_path
    )
    assert elapsed < BOUND_S


def test_counting_a_gz_file_read_ahead_stops_on_ctrl_c(tmp_path: Path) -> None:
    # Two threads: the file is inflated on a reading thread of its own, one
    # block ahead of the counting, and that thread must stop too.
    member = gzip.compress(EN_FIXTURE.read_bytes(), compresslevel=1)
    path = tmp_path / "big.txt.gz"
    with path.open("wb") as f:
        for _ in range(400_000_000 // len(EN_FIXTURE.read_bytes())):
            f.write(member)
    elapsed, _ = interrupt(
        "", f"wpiece.train({str(path)!r}, vocab_size=1000, num_threads=2)", tmp_path
    )
    assert elapsed < BOUND_S


def test_counting_texts_stops_on_ctrl_c(tmp_path: Path) -> None:
    elapsed, _ = interrupt(DOCS, "wpiece.train_from_iterator(docs, vocab_size=1000)", tmp_path)
    assert elapsed < BOUND_S


def test_fitting_stops_on_ctrl_c(tmp_path: Path) -> None:
    # Training to twice the size takes about a third of a second on an idle
    # machine, within the half second before the signal; the fit's pruning
    # and growth take seconds after it (the signal lands in them).
    setup = """
    import random
    random.seed(0)
    letters = "abcdefghijklmnopqrstuvwxyz"
    counts = {"".join(random.choices(letters, k=random.randint(6, 12))): random.randint(1, 50)
              for _ in range(400_000)}
    """
    elapsed, _ = interrupt(setup, "wpiece.train_from_counts(counts, 8000, fit=True)", tmp_path)
    assert elapsed < BOUND_S


def test_cli_train_stops_on_ctrl_c_and_writes_nothing(tmp_path: Path) -> None:
    path = big_file(tmp_path)
    out = tmp_path / "tok"
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "wpiece",
            "train",
            str(path),
            "--vocab-size",
            "1000",
            "--threads",
            "1",
            "--no-progress",
            "-o",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    # Interpreter start and import take about 0.1 s, the whole run about 2 s:
    # signal well inside counting, not near the end (a signal after main()
    # returns would end the interpreter with -SIGINT).
    time.sleep(0.8)
    assert child.poll() is None, "training ended before it could be interrupted"
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=120)
    assert time.monotonic() - sent < BOUND_S
    assert child.returncode == 130
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt"]


# The child writes a large file (a set, or one file) over an old one; the
# parent sends SIGINT once the temporary file is there, so mid-write.
WRITE_CHILD = """
import sys, time
from pathlib import Path
from wpiece import _core
folder = Path(sys.argv[1])
data = bytes(400 << 20)
print("ready", flush=True)
try:
    if sys.argv[2] == "set":
        _core.write_set_atomic(folder, [("a.bin", b"new a"), ("b.bin", data)], [])
    else:
        _core.write_atomic(folder / "b.bin", data)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


@pytest.mark.parametrize("kind", ["set", "file"])
def test_a_save_stopped_by_ctrl_c_leaves_the_old_files(tmp_path: Path, kind: str) -> None:
    # Saving held the GIL to its end: KeyboardInterrupt came after the new
    # files had replaced the old (and the CLI said nothing was written).
    (tmp_path / "a.bin").write_bytes(b"old a")
    (tmp_path / "b.bin").write_bytes(b"old b")
    child = subprocess.Popen(
        [sys.executable, "-c", WRITE_CHILD, str(tmp_path), kind], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    deadline = time.monotonic() + 60
    while not any(p.name.endswith(".tmp") for p in tmp_path.iterdir()):
        assert time.monotonic() < deadline and child.poll() is None, "no temporary file"
        time.sleep(0.0005)
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=60)
    assert out.strip() == "interrupted", out
    assert time.monotonic() - sent < BOUND_S
    assert (tmp_path / "a.bin").read_bytes() == b"old a"
    assert (tmp_path / "b.bin").read_bytes() == b"old b"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin", "b.bin"]


# How a child that may be interrupted ends: KeyboardInterrupt is
# "interrupted"; CPython itself wraps one raised while it creates a class
# (stdlib class bodies run during an import) in a RuntimeError whose cause
# is the KeyboardInterrupt, and the interrupt still arrived.
CHILD_ENDS = """except KeyboardInterrupt:
    print("interrupted", flush=True)
except BaseException as e:
    cause = e
    while cause is not None and not isinstance(cause, KeyboardInterrupt):
        cause = cause.__cause__
    if cause is not None:
        print("interrupted", flush=True)
    else:
        print("wrong:", type(e).__name__, e, flush=True)
"""


# Ctrl-C during the first call of a process that makes a numpy array.
FIRST_ARRAY_CHILD = (
    """
import os, signal, threading, wpiece
tok = wpiece.Tokenizer.from_file({vocab!r})
texts = ["Ça été très élégant, naïveté façade coöperation " * 40] * 110
threading.Timer(0.002, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    tok.encode_batch_flat(texts)
    print("finished", flush=True)
"""
    + CHILD_ENDS
)


def test_ctrl_c_in_the_first_array_call_is_a_keyboard_interrupt() -> None:
    # numpy's C API was looked up inside that call, and a KeyboardInterrupt
    # during the lookup became a PanicException (10 runs in 10). numpy is
    # now imported by that first call: the signal lands in its import at
    # some delays, in the encoding at others.
    for delay in (0.0005, 0.002, 0.005, 0.01, 0.02, 0.04):
        child = FIRST_ARRAY_CHILD.format(vocab=str(VOCAB_TXT)).replace("0.002", str(delay))
        run = subprocess.run(
            [sys.executable, "-c", child], capture_output=True, text=True, timeout=120
        )
        # numpy's own import, interrupted, may end as its ImportError
        # ("PyCapsule_Import could not import module ..."): numpy's doing.
        first = run.stdout.strip().split("\n")[0]
        expected = first in ("interrupted", "finished") or first.startswith("wrong: ImportError")
        assert expected, (delay, run.stdout, run.stderr)
        assert "Panic" not in run.stdout + run.stderr, (delay, run.stdout, run.stderr)


IMPORT_CHILD = (
    """
import sys
try:
    import wpiece
    print("imported", flush=True)
"""
    + CHILD_ENDS
)


def test_ctrl_c_while_importing_is_a_keyboard_interrupt() -> None:
    # The core looked numpy's C API up when imported: interrupted, that
    # lookup panicked (13 imports in 40).
    for delay in (0.02, 0.05, 0.08, 0.11, 0.14, 0.17, 0.2, 0.25, 0.3, 0.4):
        child = subprocess.Popen(
            [sys.executable, "-c", IMPORT_CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        time.sleep(delay)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
        # numpy's own import, interrupted, may end as its ImportError
        # ("PyCapsule_Import could not import module ..."): numpy's doing.
        first = out.decode().strip().split("\n")[0].strip()
        assert first in ("imported", "interrupted", "") or first.startswith("wrong: ImportError"), (
            delay,
            out,
            err,
        )
        assert b"Panic" not in out + err, (delay, out, err)


WITHOUT_NUMPY_CHILD = """
import sys
sys.modules["numpy"] = None
import wpiece
tok = wpiece.Tokenizer.from_file({vocab!r})
print(tok.encode("hello world").tokens, flush=True)
print(wpiece.train_from_iterator(["a b ab"] * 10, vocab_size=40).get_vocab()["ab"] > 0, flush=True)
try:
    tok.encode_batch_flat(["hello"])
except ImportError as e:
    print("ImportError", "numpy" in str(e), flush=True)
"""


def test_without_numpy_only_the_calls_that_make_arrays_fail() -> None:
    # Importing numpy starts OpenBLAS threads that spin on a core for a
    # tenth of a second, and took half of `import wpiece`'s time: wpiece
    # imports it at the first call that makes an array.
    child = WITHOUT_NUMPY_CHILD.format(vocab=str(VOCAB_TXT))
    run = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120)
    assert run.stdout.split("\n")[:3] == [
        "['[CLS]', 'hello', 'world', '[SEP]']",
        "True",
        "ImportError True",
    ], (run.stdout, run.stderr)


def test_arrow_buffers_given_to_the_core_first_import_numpy() -> None:
    # The core's Arrow methods took numpy arrays as arguments: converted
    # before numpy_ready, rust-numpy imported numpy itself (a panic on Ctrl-C).
    code = (
        "import sys, wpiece\n"
        "tok = wpiece.Tokenizer(['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'a'])\n"
        "for call in (lambda: wpiece.WordCounts()._core.add_arrow(b'x', b'y', None, 0, 0),\n"
        "             lambda: tok._core.encode_arrow_flat(b'x', b'y', None, 0, 0)):\n"
        "    try:\n"
        "        call()\n"
        "    except TypeError as e:\n"
        "        print('TypeError', 'numpy' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.stdout.split("\n")[:2] == ["TypeError True", "TypeError True"], (
        run.stdout,
        run.stderr,
    )
    assert "Panic" not in run.stderr


def test_import_wpiece_leaves_numpy_unimported() -> None:
    code = "import sys, wpiece\nprint('numpy' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.stdout.strip() == "False", (run.stdout, run.stderr)


@pytest.mark.parametrize("batch", [False, True])
def test_words_given_apart_stop_on_ctrl_c(tmp_path: Path, batch: bool) -> None:
    # Millions of words were read and encoded without a look at Ctrl-C.
    setup = f"""
words = ["word", "piece", "naïve"] * 5_000_000
tok = wpiece.Tokenizer.from_file({str(VOCAB_TXT)!r})
"""
    call = (
        "tok.encode_batch([words], is_pretokenized=True)"
        if batch
        else "tok.encode(words, is_pretokenized=True)"
    )
    elapsed, _ = interrupt(setup, call, tmp_path)
    assert elapsed < BOUND_S


# Ctrl-C seen after an in-place merge last looked at its flag: the handler
# sleeps (holding the interpreter) while the merge, told nothing yet, runs to
# its end; then it raises.
LATE_CTRL_C_CHILD = """
import os, signal, threading, time, wpiece
words = " ".join(f"w{{k}}" for k in range({n}))
counts = wpiece.count_words([words], num_threads=1)
base = wpiece.count_words(["w1 w1 fresh"], num_threads=1)
before = (len(base), base.total(), base.most_common())
started = time.monotonic()
base.copy().update(counts)
merge_s = time.monotonic() - started
def slow_handler(signum, frame):
    time.sleep(3 * merge_s + 0.5)
    raise KeyboardInterrupt
signal.signal(signal.SIGINT, slow_handler)
threading.Timer(0.01, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    base.update(counts)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
print("merge_s", merge_s)
print("unchanged", (len(base), base.total(), base.most_common()) == before)
"""


def test_ctrl_c_seen_after_an_update_finished_changes_nothing() -> None:
    # The merge runs past the first look for signals (50 ms) and ends while
    # the handler sleeps: it is taken back before KeyboardInterrupt.
    child = LATE_CTRL_C_CHILD.format(n=3_000_000)
    run = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=300)
    lines = dict(line.split(" ", 1) for line in run.stdout.split("\n")[1:] if " " in line)
    assert run.stdout.startswith("interrupted"), (run.stdout, run.stderr)
    assert float(lines["merge_s"]) > 0.1, "the merge ended before the first look for signals"
    assert lines["unchanged"] == "True", run.stdout


# Ctrl-C at points through a counts save: each trial says what it raised and
# which file it left.
COUNTS_SAVE_CHILD = """
import hashlib, os, signal, threading, time, wpiece
small = wpiece.count_words(["hello world"])
big = wpiece.count_words(["w%d" % i for i in range(1_000_000)])
path = os.path.join({folder!r}, "counts.wpc")
start = time.perf_counter(); big.save(path); took = time.perf_counter() - start
digest = lambda: hashlib.md5(open(path, "rb").read()).hexdigest()
for k in range(12):
    small.save(path); old = digest()
    timer = threading.Timer(took * k / 12, lambda: os.kill(os.getpid(), signal.SIGINT))
    try:
        timer.start(); big.save(path); raised = "none"
    except KeyboardInterrupt:
        raised = "interrupt"
    try:
        time.sleep(max(0.2, 2 * took))  # a Ctrl-C after the save lands here
    except KeyboardInterrupt:
        pass
    timer.join()
    print(raised, "old" if digest() == old else "new", flush=True)
"""


def test_a_counts_save_interrupted_as_it_finishes_leaves_the_old_file(tmp_path: Path) -> None:
    # The write ran on a worker and renamed its file before the watcher's
    # next look for signals (every 50 ms): KeyboardInterrupt came with the
    # new file in place (7 of 10 trials).
    child = COUNTS_SAVE_CHILD.format(folder=str(tmp_path))
    run = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=300)
    trials = [tuple(line.split()) for line in run.stdout.splitlines()]
    assert len(trials) == 12, (run.stdout, run.stderr)
    assert ("interrupt", "new") not in trials, trials
    assert ("interrupt", "old") in trials, trials  # the test reaches the save
    assert [p.name for p in tmp_path.iterdir()] == ["counts.wpc"]
