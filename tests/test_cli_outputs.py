"""The CLI's outputs never replace what the command reads (its input, its
tokenizer), and paths are taken as given: an existing name is literal, only
a missing one is a glob."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import wpiece
from wpiece.cli import main

from conftest import EN_FIXTURE, VOCAB_TXT


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """The exit code and stderr of `wpiece *args`, run in this process."""
    code = main(list(args))
    return code, capsys.readouterr().err


def refused(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, err = run(capsys, *args)
    assert code == 2, err
    assert err.startswith("wpiece: error:") and err.count("\n") == 1, err
    return err


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    p = tmp_path / "corpus.txt"
    lines = EN_FIXTURE.read_text(encoding="utf-8").splitlines()[:400]
    p.write_text("precious corpus line\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return p


@pytest.fixture
def vocab(tmp_path: Path) -> Path:
    p = tmp_path / "vocab.txt"
    p.write_bytes(VOCAB_TXT.read_bytes())
    return p


def test_encode_refuses_to_write_over_its_input(
    capsys: pytest.CaptureFixture[str], corpus: Path, vocab: Path
) -> None:
    before = corpus.read_bytes()
    err = refused(capsys, "encode", "--tokenizer", str(vocab), str(corpus), "-o", str(corpus))
    assert f"output {corpus} is the input {corpus}" in err
    # the same file under another name: a hard link, a symlink, a relative path
    os.link(corpus, corpus.parent / "hard.txt")
    os.symlink(corpus, corpus.parent / "soft.jsonl")
    for other in ("hard.txt", "soft.jsonl", f"../{corpus.parent.name}/./corpus.txt"):
        refused(
            capsys,
            "encode",
            "--tokenizer",
            str(vocab),
            str(corpus),
            "-o",
            str(corpus.parent / other),
        )
    assert corpus.read_bytes() == before


def test_encode_refuses_to_write_over_its_tokenizer(
    capsys: pytest.CaptureFixture[str], corpus: Path, vocab: Path, tmp_path: Path
) -> None:
    before = vocab.read_bytes()
    err = refused(capsys, "encode", "--tokenizer", str(vocab), str(corpus), "-o", str(vocab))
    assert f"output {vocab} is the tokenizer {vocab}" in err
    assert vocab.read_bytes() == before
    folder = tmp_path / "tok"
    wpiece.Tokenizer.from_file(vocab).save(folder)
    saved = {p.name: p.read_bytes() for p in folder.iterdir()}
    for name in saved:
        refused(capsys, "encode", "--tokenizer", str(folder), str(corpus), "-o", str(folder / name))
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == saved


def test_encode_npy_refuses_when_its_row_file_is_an_input(
    capsys: pytest.CaptureFixture[str], vocab: Path, tmp_path: Path
) -> None:
    rows = tmp_path / "ids.rows.npy"
    rows.write_text("a corpus with an odd name\n", encoding="utf-8")
    err = refused(
        capsys, "encode", "--tokenizer", str(vocab), str(rows), "-o", str(tmp_path / "ids.npy")
    )
    assert str(rows) in err
    assert rows.read_text(encoding="utf-8") == "a corpus with an odd name\n"
    assert sorted(os.listdir(tmp_path)) == ["ids.rows.npy", "vocab.txt"]


def test_encode_to_another_file_still_writes(
    capsys: pytest.CaptureFixture[str], corpus: Path, vocab: Path, tmp_path: Path
) -> None:
    out = tmp_path / "ids.jsonl"
    assert run(capsys, "encode", "--tokenizer", str(vocab), str(corpus), "-o", str(out))[0] == 0
    assert out.read_text().splitlines()[0] == "[101, 9062, 13931, 2240, 102]"


def test_train_refuses_to_write_over_its_input_but_updates_its_tokenizer(
    capsys: pytest.CaptureFixture[str], corpus: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "tok"
    folder.mkdir()
    inside = folder / "vocab.txt"
    inside.write_bytes(corpus.read_bytes())
    err = refused(capsys, "train", str(inside), "--vocab-size", "60", "-o", str(folder))
    assert f"is the input {inside}" in err
    assert inside.read_bytes() == corpus.read_bytes()
    assert os.listdir(folder) == ["vocab.txt"]
    base = tmp_path / "base"
    assert run(capsys, "train", str(corpus), "--vocab-size", "60", "-o", str(base))[0] == 0
    # Extending in place: the tokenizer is read whole before the new set
    # replaces it, its old ids kept.
    old = wpiece.Tokenizer.from_file(base).get_vocab()
    args = ("train", str(corpus), "--vocab-size", "120", "--extend", str(base), "-o", str(base))
    code, err = run(capsys, *args)
    assert code == 0, err
    new = wpiece.Tokenizer.from_file(base).get_vocab()
    assert len(new) > len(old) and all(new[t] == i for t, i in old.items())


@pytest.fixture
def bracketed(tmp_path: Path) -> Path:
    """`data[1].txt` beside `data1.txt`, which the glob `data[1].txt` matches."""
    (tmp_path / "data[1].txt").write_text("bracket file words\n", encoding="utf-8")
    (tmp_path / "data1.txt").write_text("other entirely\n", encoding="utf-8")
    return tmp_path / "data[1].txt"


def test_an_existing_path_is_literal_not_a_glob(
    capsys: pytest.CaptureFixture[str], bracketed: Path
) -> None:
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    assert main(["encode", "--tokenizer", str(VOCAB_TXT), str(bracketed)]) == 0
    assert capsys.readouterr().out == f"{tok.encode('bracket file words').ids}\n"
    assert dict(wpiece.count_words(str(bracketed)).items()) == {
        "bracket": 1,
        "file": 1,
        "words": 1,
    }
    assert "bracket" in wpiece.train(bracketed, vocab_size=40).get_vocab()
    ids, _ = tok.encode_files(str(bracketed))
    assert tok.decode(ids.tolist()) == "bracket file words"
    (bracketed.parent / "data1.txt").unlink()  # alone, it was "no file matches"
    assert run(capsys, "encode", "--tokenizer", str(VOCAB_TXT), str(bracketed))[0] == 0


def test_encode_files_expands_globs_as_the_others_do(tmp_path: Path) -> None:
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    (tmp_path / "a.txt").write_text("hello\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("world\n", encoding="utf-8")
    ids, rows = tok.encode_files(str(tmp_path / "*.txt"), add_special_tokens=False)
    assert [tok.decode(ids[rows[k] : rows[k + 1]].tolist()) for k in range(2)] == [
        "hello",
        "world",
    ]
    with pytest.raises(FileNotFoundError, match="no file matches"):
        tok.encode_files(str(tmp_path / "*.gz"))
    with pytest.raises(ValueError, match="path is empty"):
        tok.encode_files("")
    assert tok.encode_files([])[1].tolist() == [0]


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_ctrl_c_while_the_report_is_drawn_leaves_the_old_set(
    capsys: pytest.CaptureFixture[str],
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "tok"
    assert (
        run(capsys, "train", str(corpus), "--vocab-size", "200", "-o", str(out), "--report")[0] == 0
    )
    old = contents(out)
    assert {"report.png", "report.html", "tokenizer.json"} <= set(old)

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("wpiece.report._figure", interrupted)
    code, err = run(capsys, "train", str(corpus), "--vocab-size", "300", "-o", str(out), "--report")
    assert code == 130 and "nothing was written" in err
    assert contents(out) == old  # the old tokenizer beside its own report


def test_a_save_without_a_report_removes_the_stale_one(
    capsys: pytest.CaptureFixture[str], corpus: Path, tmp_path: Path
) -> None:
    out = tmp_path / "tok"
    assert (
        run(capsys, "train", str(corpus), "--vocab-size", "200", "-o", str(out), "--report")[0] == 0
    )
    code, _ = run(capsys, "train", str(corpus), "--vocab-size", "300", "-o", str(out))
    assert code == 0
    assert sorted(os.listdir(out)) == [
        "tokenizer.json",
        "tokenizer_config.json",
        "training_record.json",
        "vocab.txt",
    ]
    assert len(wpiece.Tokenizer.from_file(out)) == 300
    # the library's folder save alike
    from wpiece.report import write_report

    tok = wpiece.train(corpus, vocab_size=200)
    write_report(tok, out)
    assert {"report.png", "report.html"} <= set(os.listdir(out))
    wpiece.Tokenizer.from_file(VOCAB_TXT).save(out)
    assert sorted(os.listdir(out)) == ["tokenizer.json", "tokenizer_config.json", "vocab.txt"]


def test_decode_refuses_devices_and_fifos(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "ids.fifo"
    os.mkfifo(fifo)  # opened for reading, it would wait for a writer forever
    # /dev/null first: without the check it is read as empty and passes (no hang)
    for source in ("/dev/null", "/dev/zero", str(fifo)):
        err = refused(capsys, "decode", "--tokenizer", str(VOCAB_TXT), source)
        assert f"{source} is not a regular file" in err
    err = refused(capsys, "decode", "--tokenizer", str(VOCAB_TXT), str(tmp_path))
    assert "is a folder" in err


def test_out_of_memory_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("7592 2088\n", encoding="utf-8")

    def exhausted(*args: object, **kwargs: object) -> str:
        raise MemoryError

    monkeypatch.setattr(wpiece.Tokenizer, "decode", exhausted)
    err = refused(capsys, "decode", "--tokenizer", str(VOCAB_TXT), str(ids))
    assert err == "wpiece: error: out of memory\n"


def usage_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """The stderr of an argparse usage error (exit 2)."""
    with pytest.raises(SystemExit) as caught:
        main(list(args))
    assert caught.value.code == 2
    return capsys.readouterr().err


def test_stats_top_must_not_be_negative(capsys: pytest.CaptureFixture[str], corpus: Path) -> None:
    for top in ("-1", "-30000", "x"):
        err = usage_error(capsys, "stats", "--tokenizer", str(VOCAB_TXT), "--top", top, str(corpus))
        assert "argument --top" in err
    assert main(["stats", "--tokenizer", str(VOCAB_TXT), "--top", "0", str(corpus)]) == 0
    assert "  longest tokens: \n" in capsys.readouterr().out


def test_stats_refuses_a_tokenizer_given_twice(
    capsys: pytest.CaptureFixture[str], corpus: Path
) -> None:
    v = str(VOCAB_TXT)
    err = refused(capsys, "stats", "--tokenizer", v, "--tokenizer", v, "--json", str(corpus))
    assert f"--tokenizer {v} is given twice" in err


def test_jsonl_output_into_missing_folders_is_made_as_npy_is(
    capsys: pytest.CaptureFixture[str], corpus: Path, tmp_path: Path
) -> None:
    for name in ("no/sub/x.jsonl", "no2/sub/x.npy"):
        out = tmp_path / name
        assert (
            run(capsys, "encode", "--tokenizer", str(VOCAB_TXT), str(corpus), "-o", str(out))[0]
            == 0
        )
        assert out.exists()
    assert (tmp_path / "no/sub/x.jsonl").read_text().startswith("[101, 9062, 13931, 2240, 102]\n")


def test_small_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for command in ("demo", "bench"):
        for option in ("--corpus", "--vocab"):
            assert f"{option} path is empty" in refused(capsys, command, option, "")
    assert main(["demo", "--corpus", "-"]) == 2
    seen = capsys.readouterr()
    assert "not - (stdin)" in seen.err and seen.out == ""  # refused before any demo output
    for repeats in ("0", "-1"):
        assert "argument --repeats" in usage_error(capsys, "bench", "--repeats", repeats)
    ids = tmp_path / "ids.txt"
    for line in ("1_000", "\u0663 \u0664", "+7592", "7592 0x10"):
        ids.write_text(f"7592\n{line}\n", encoding="utf-8")
        assert "line 2" in refused(capsys, "decode", "--tokenizer", str(VOCAB_TXT), str(ids))
    ids.write_text("7592 2088\n[7592]\n", encoding="utf-8")
    assert main(["decode", "--tokenizer", str(VOCAB_TXT), str(ids)]) == 0
    assert capsys.readouterr().out == "hello world\nhello\n"


def test_npy_output_names_are_the_ones_given(
    capsys: pytest.CaptureFixture[str], corpus: Path, vocab: Path, tmp_path: Path
) -> None:
    # -o IDS.NPY wrote JSON Lines into IDS.NPY; --format npy -o x.jsonl
    # wrote x.jsonl.npy and x.jsonl.rows.npy, files nobody named.
    import numpy as np

    out = tmp_path / "IDS.NPY"
    assert run(capsys, "encode", "--tokenizer", str(vocab), str(corpus), "-o", str(out))[0] == 0
    ids, rows = np.load(out), np.load(tmp_path / "IDS.rows.NPY")
    first = wpiece.Tokenizer.from_file(vocab).encode("precious corpus line").ids
    assert ids[rows[0] : rows[1]].tolist() == first
    for fmt, name in (("npy", "x.jsonl"), ("jsonl", "x.npy")):
        args = ("--format", fmt, "-o", str(tmp_path / name))
        refused(capsys, "encode", "--tokenizer", str(vocab), str(corpus), *args)
    assert not list(tmp_path.glob("x*"))


def test_encode_refuses_to_write_over_its_standard_input(corpus: Path, vocab: Path) -> None:
    # `-o corpus.txt < corpus.txt` replaced the corpus with ids.
    import subprocess
    import sys

    before = corpus.read_bytes()
    with corpus.open("rb") as stdin:
        run_ = subprocess.run(
            [sys.executable, "-m", "wpiece", "encode", "--tokenizer", str(vocab), "-"]
            + ["-o", str(corpus)],
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert run_.returncode == 2 and "is the input" in run_.stderr, run_.stderr
    assert corpus.read_bytes() == before


def test_a_failed_encode_leaves_no_folder_it_made(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The folders made for -o stayed after the encode failed.
    (tmp_path / "c.txt").write_text("hello \U0001f600\n", encoding="utf-8")
    (tmp_path / "v.txt").write_text("hello\n", encoding="utf-8")  # no [UNK]
    out = tmp_path / "new" / "sub" / "ids.jsonl"
    err = refused(
        capsys,
        "encode",
        "--tokenizer",
        str(tmp_path / "v.txt"),
        str(tmp_path / "c.txt"),
        "-o",
        str(out),
    )
    assert "unknown token" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", "v.txt"]
