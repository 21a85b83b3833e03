"""The CLI under hostile input: one line on stderr and exit 2 for every user
error (never a traceback), checks made before a long run, and Ctrl-C leaving
no output behind (exit 130)."""

from __future__ import annotations

import gzip
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import EN_FIXTURE, VOCAB_TXT


def cli(*args: str, stdin: bytes = b"", env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "wpiece", *args], input=stdin, capture_output=True, env=env
    )


def user_error(res: subprocess.CompletedProcess, *words: str) -> None:
    err = res.stderr.decode()
    assert res.returncode == 2, err
    assert "Traceback" not in err
    assert err.startswith("wpiece: error:") or "usage:" in err, err
    for w in words:
        assert w in err, err


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    p = tmp_path / "c.txt"
    p.write_text("hello world\nthe quick brown fox\n" * 50, encoding="utf-8")
    return p


def test_negative_threads(corpus: Path, tmp_path: Path) -> None:
    user_error(
        cli(
            "train", str(corpus), "--vocab-size", "50", "--threads", "-1", "-o", str(tmp_path / "o")
        ),
        "-1",
    )


def test_broken_gzip_inputs(tmp_path: Path) -> None:
    data = gzip.compress(b"hello world\n" * 2000)
    (tmp_path / "cut.txt.gz").write_bytes(data[: len(data) // 2])
    (tmp_path / "bad.txt.gz").write_bytes(b"\x1f\x8b" + b"garbage" * 50)
    (tmp_path / "bad.jsonl.gz").write_bytes(b"\x1f\x8b" + b"garbage" * 50)
    for name in ("cut.txt.gz", "bad.txt.gz"):
        user_error(cli("encode", "--tokenizer", str(VOCAB_TXT), str(tmp_path / name)), name)
    user_error(
        cli(
            "train",
            str(tmp_path / "bad.jsonl.gz"),
            "--vocab-size",
            "50",
            "--field",
            "text",
            "-o",
            str(tmp_path / "o"),
        ),
        "bad.jsonl.gz",
    )
    assert not (tmp_path / "o").exists()


def test_json_lines_need_a_field_in_any_case_and_demo_says_it_reads_text(tmp_path: Path) -> None:
    for name in ("b.JSONL", "c.Jsonl.gz", "d.ndjson"):
        path = tmp_path / name
        body = b'{"text": "hello world"}\n' * 3
        path.write_bytes(gzip.compress(body) if name.endswith(".gz") else body)
        out = tmp_path / "o"
        user_error(cli("train", str(path), "--vocab-size", "50", "-o", str(out)), name, "--field")
        assert not out.exists()
        user_error(cli("demo", "--corpus", str(path)), name, "give a text file")
        user_error(cli("bench", "--corpus", str(path)), name, "give a text file")


@pytest.mark.parametrize("line", ["[-1]", "[99999999999]", "[1.5, 7592]", '["7592"]', "{}"])
def test_decode_bad_lines(line: str) -> None:
    res = cli("decode", "--tokenizer", str(VOCAB_TXT), "-", stdin=f"[7592]\n{line}\n".encode())
    user_error(res, "line 2")


@pytest.mark.parametrize("content", ["", "   \n\t\n"])
def test_demo_on_an_empty_corpus(tmp_path: Path, content: str) -> None:
    path = tmp_path / "empty.txt"
    path.write_text(content, encoding="utf-8")
    user_error(cli("demo", "--corpus", str(path)), "empty.txt")


def test_unwritable_output_found_before_training(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(EN_FIXTURE.read_bytes() * 20)
    started = time.monotonic()
    user_error(cli("train", str(big), "--vocab-size", "50", "-o", "/proc/nope/x"), "/proc")
    user_error(cli("encode", "--tokenizer", str(VOCAB_TXT), str(big), "-o", "/proc/nope/x"))
    assert time.monotonic() - started < 10


def test_an_empty_output_path_is_refused_and_the_current_folder_untouched(
    corpus: Path, tmp_path: Path
) -> None:
    """-o "" (an unset $OUT) would be the current folder: its vocab.txt
    replaced and a tokenizer.json there removed as stale."""
    import os

    work = tmp_path / "work"
    work.mkdir()
    (work / "vocab.txt").write_text("mine\n")
    (work / "tokenizer.json").write_text("{}")
    here = os.getcwd()
    os.chdir(work)
    try:
        for extra in ([], ["--unknown", "char"]):
            res = cli("train", str(corpus), "--vocab-size", "50", *extra, "-o", "")
            user_error(res, "output path is empty")
    finally:
        os.chdir(here)
    assert sorted(os.listdir(work)) == ["tokenizer.json", "vocab.txt"]
    assert (work / "vocab.txt").read_text() == "mine\n"


def test_encode_never_replaces_a_fifo(corpus: Path, tmp_path: Path) -> None:
    import os
    import stat

    fifo = tmp_path / "ids.fifo"
    os.mkfifo(fifo)
    res = cli("encode", "--tokenizer", str(VOCAB_TXT), str(corpus), "-o", str(fifo))
    user_error(res, "not a regular file")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["c.txt", "ids.fifo"]


def test_report_without_matplotlib_found_before_training(corpus: Path, tmp_path: Path) -> None:
    fake = tmp_path / "fake"
    (fake / "matplotlib").mkdir(parents=True)
    (fake / "matplotlib" / "__init__.py").write_text("raise ImportError('no matplotlib')\n")
    import os

    env = {**os.environ, "PYTHONPATH": str(fake)}
    res = cli(
        "train", str(corpus), "--vocab-size", "50", "--report", "-o", str(tmp_path / "o"), env=env
    )
    user_error(res, "matplotlib")
    assert not (tmp_path / "o").exists()


def test_messages_say_what_a_path_is(tmp_path: Path) -> None:
    tok = str(VOCAB_TXT)
    user_error(cli("encode", "--tokenizer", tok, str(tmp_path)), "is a folder")
    user_error(cli("encode", "--tokenizer", tok, "/dev/null"), "not a regular file")
    user_error(cli("encode", "--tokenizer", tok, str(tmp_path / "no" / "x.txt")), "no such folder")
    user_error(cli("encode", "--tokenizer", tok, str(tmp_path / "x.txt")), "no such file")


def test_bad_utf8_names_the_file_or_stdin(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"hello\nwor\xffld\n")
    user_error(cli("encode", "--tokenizer", str(VOCAB_TXT), str(bad)), "bad.txt", "byte offset 9")
    res = cli("train", "-", "--vocab-size", "50", "-o", str(tmp_path / "o"), stdin=b"ok\n\xfe\n")
    user_error(res, "stdin", "byte offset 3")


def test_ctrl_c_during_cli_encode_leaves_no_output(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    block = EN_FIXTURE.read_bytes()
    with big.open("wb") as f:
        for _ in range(300_000_000 // len(block)):
            f.write(block)
    old = tmp_path / "ids.jsonl"
    old.write_text("[1]\n", encoding="utf-8")  # an older output stays as it was
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "wpiece",
            "encode",
            "--tokenizer",
            str(VOCAB_TXT),
            str(big),
            "-o",
            str(old),
            "--no-progress",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(8.0)  # reading the 300 MB is done; writing ids is under way
    assert child.poll() is None, "encoding ended before it could be interrupted"
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=120)
    assert time.monotonic() - sent < 2.0
    assert child.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt", "ids.jsonl"]
    assert old.read_text(encoding="utf-8") == "[1]\n"


def test_a_reader_that_goes_away_ends_the_output_quietly() -> None:
    # `wpiece encode ... | head` printed "wpiece: error: [Errno 32] Broken
    # pipe" and exited 2.
    child = subprocess.Popen(
        [sys.executable, "-m", "wpiece", "encode", "--tokenizer", str(VOCAB_TXT), str(EN_FIXTURE)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None and child.stderr is not None
    assert child.stdout.readline().startswith(b"[101, ")
    child.stdout.close()
    err = child.stderr.read()
    assert child.wait(timeout=120) == 141, err
    assert err == b""
