"""The `wpiece` command line, run as a user would, on small fixtures."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import wpiece
from wpiece.cli import main

from conftest import EN_FIXTURE, VOCAB_TXT

LINES = EN_FIXTURE.read_text(encoding="utf-8").splitlines()[:3000]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("corpus")
    (d / "a.txt").write_text("\n".join(LINES[:1500]) + "\n", encoding="utf-8")
    with gzip.open(d / "b.txt.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(LINES[1500:]) + "\n")
    with open(d / "c.jsonl", "w", encoding="utf-8") as f:
        for line in LINES:
            f.write(json.dumps({"text": line}) + "\n")
    return d


@pytest.fixture(scope="module")
def trained(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("tok")
    assert main([
        "train", str(corpus / "a.txt"), str(corpus / "b.txt.gz"),
        "--vocab-size", "1500", "-o", str(out), "--report", "--no-progress",
    ]) == 0  # fmt: skip
    return out


def test_train_writes_vocab_json_record_and_report(trained, capsys) -> None:
    names = sorted(p.name for p in trained.iterdir())
    assert names == [
        "report.html",
        "report.png",
        "tokenizer.json",
        "tokenizer_config.json",
        "training_record.json",
        "vocab.txt",
    ]
    assert (trained / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (trained / "report.png").stat().st_size > 20_000
    page = (trained / "report.html").read_text(encoding="utf-8")
    assert "data:image/png;base64," in page and "tokens per word" in page
    assert len(wpiece.Tokenizer.from_file(trained)) == 1500


def test_train_inputs_agree(corpus, tmp_path) -> None:
    """Files+gz, JSONL with --field and stdin give the same vocabulary."""
    assert main(["train", str(corpus / "c.jsonl"), "--field", "text", "--vocab-size", "900",
                 "-o", str(tmp_path / "j")]) == 0  # fmt: skip
    assert main(["train", str(corpus / "a.txt"), str(corpus / "b.txt.gz"), "--vocab-size", "900",
                 "-o", str(tmp_path / "f")]) == 0  # fmt: skip
    stdin = "\n".join(LINES) + "\n"
    proc = subprocess.run(
        [sys.executable, "-m", "wpiece", "train", "-", "--vocab-size", "900", "-o",
         str(tmp_path / "s")],
        input=stdin, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "training splits:" in proc.stdout
    vocabs = [(tmp_path / d / "vocab.txt").read_text(encoding="utf-8") for d in "jfs"]
    assert vocabs[0] == vocabs[1] == vocabs[2]


def test_encode_jsonl_and_npy_then_decode(trained, corpus, tmp_path, capsys) -> None:
    tok = wpiece.Tokenizer.from_file(trained)
    tok.no_padding()
    tok.no_truncation()
    out = tmp_path / "ids.jsonl"
    assert main(["encode", "--tokenizer", str(trained), str(corpus / "a.txt"), "-o", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert rows == [e.ids for e in tok.encode_batch(LINES[:1500])]
    npy = tmp_path / "ids.npy"
    assert main(["encode", "--tokenizer", str(trained), str(corpus / "a.txt"), "-o", str(npy)]) == 0
    ids, offsets = np.load(npy), np.load(tmp_path / "ids.rows.npy")
    assert ids[offsets[3] : offsets[4]].tolist() == rows[3]
    capsys.readouterr()
    assert main(["decode", "--tokenizer", str(trained), str(out)]) == 0
    decoded = capsys.readouterr().out.splitlines()
    assert decoded == [tok.decode(r) for r in rows]


def test_stats_side_by_side(trained, corpus, capsys) -> None:
    args = ["stats", "--tokenizer", str(trained), "--tokenizer", str(VOCAB_TXT)]
    assert main(args + [str(corpus / "a.txt")]) == 0
    out = capsys.readouterr().out
    for label in (
        "tokens / word",
        "characters / token",
        "words kept whole",
        "unknown words",
        "vocab used",
    ):
        assert label in out
    assert "longest tokens" in out and "most frequent" in out
    assert main(args + ["--json", str(corpus / "a.txt")]) == 0
    stats = json.loads(capsys.readouterr().out)
    small, bert = stats[str(trained)], stats[str(VOCAB_TXT)]
    assert small["tokens_per_word"] > bert["tokens_per_word"]  # 1.5k vocab splits more
    assert 0 < bert["vocab_used"] < 1
    docs = (corpus / "a.txt").read_text(encoding="utf-8").splitlines()
    want = wpiece.Tokenizer.from_file(VOCAB_TXT).stats(docs).to_dict()
    assert {k: bert[k] for k in want} == want


def test_train_holds_out_documents_and_reports_them(corpus, tmp_path, capsys) -> None:
    out = tmp_path / "tok"
    args = ["train", str(corpus / "a.txt"), "--vocab-size", "800", "-o", str(out), "--no-progress"]
    assert main(args + ["--held-out", "10%"]) == 0
    printed = capsys.readouterr().out
    assert "likelihood score" in printed and "held out (10% of documents" in printed
    record = wpiece.TrainingRecord.load(out / "training_record.json")
    assert record.score == "likelihood" and record.held_out_fraction == 0.1
    docs = (corpus / "a.txt").read_text(encoding="utf-8").splitlines()
    api = wpiece.train_from_iterator(docs, 800, held_out=0.1)
    assert api.training_record.held_out == record.held_out
    assert main(args + ["--held-out", "0.1", "--score", "wordpiece"]) == 0
    assert wpiece.TrainingRecord.load(out / "training_record.json").score == "wordpiece"
    for bad in ("100%", "-1", "x%", "1.5"):
        with pytest.raises(SystemExit) as e:
            main(args + ["--held-out", bad])
        assert e.value.code == 2


def test_bench_and_demo_run(capsys) -> None:
    assert main(["bench", "--repeats", "1", "--vocab-size", "300"]) == 0
    out = capsys.readouterr().out
    assert "encode  wpiece" in out and "train   wpiece" in out
    assert main(["demo"]) == 0
    assert "trained a 2,000-token WordPiece vocab" in capsys.readouterr().out


def test_clear_errors(tmp_path, capsys) -> None:
    assert main(["train", str(tmp_path / "missing.txt"), "--vocab-size", "10", "-o",
                 str(tmp_path / "o")]) == 2  # fmt: skip
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xff\n")
    assert main(["train", str(bad), "--vocab-size", "10", "-o", str(tmp_path / "o")]) == 2
    assert "invalid UTF-8 at byte offset 3" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "x.txt"])  # --vocab-size and -o are required
    ids = tmp_path / "ids.txt"
    ids.write_text("1 2 x\n", encoding="utf-8")
    assert main(["decode", "--tokenizer", str(VOCAB_TXT), str(ids)]) == 2
    assert "line 1" in capsys.readouterr().err


def test_help_has_examples() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "wpiece", "--help"], capture_output=True, text=True, check=True
    )
    assert "examples:" in proc.stdout and "wpiece train" in proc.stdout


def test_progress_bar_only_when_asked(corpus, tmp_path) -> None:
    base = [sys.executable, "-m", "wpiece", "train", str(corpus / "a.txt"), "--vocab-size", "300"]
    quiet = subprocess.run(base + ["-o", str(tmp_path / "q")], capture_output=True, text=True)
    assert quiet.returncode == 0 and "merging" not in quiet.stderr  # stderr is not a terminal
    loud = subprocess.run(
        base + ["-o", str(tmp_path / "l"), "--progress"], capture_output=True, text=True
    )
    assert loud.returncode == 0 and "merging" in loud.stderr and "counting" in loud.stderr


def test_a_ctrl_c_after_the_output_is_written_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Ctrl-C while the summary printed: exit 130 said "nothing was written"
    # over a complete new tokenizer folder.
    import io

    class CtrlCAtTheSummary(io.StringIO):
        def write(self, text: str) -> int:
            if text.startswith("trained"):
                raise KeyboardInterrupt
            return super().write(text)

    out = tmp_path / "tok"
    monkeypatch.setattr(sys, "stdout", CtrlCAtTheSummary())
    args = ["train", str(wpiece.sample_text_path()), "--vocab-size", "300", "--no-progress"]
    assert main([*args, "-o", str(out)]) == 130
    assert f"interrupted; after writing {out}" in capsys.readouterr().err
    assert wpiece.Tokenizer.from_file(out).get_vocab_size() == 300


def test_empty_special_tokens_leave_the_unknown_token_alone(tmp_path: Path) -> None:
    # "" took the five BERT defaults.
    out = tmp_path / "tok"
    args = ["train", str(wpiece.sample_text_path()), "--vocab-size", "200", "--no-progress"]
    assert main([*args, "--special-tokens", "", "-o", str(out)]) == 0
    tok = wpiece.Tokenizer.from_file(out)
    assert tok.id_to_token(0) == "[UNK]" and tok.token_to_id("[CLS]") is None
