"""The Python API: construction, options, persistence, pickling, docs."""

from __future__ import annotations

import doctest
import json
import pickle
import threading

import pytest
from tokenizers import Tokenizer as HFTokenizer

import wpiece
import wpiece.added_tokens
import wpiece.arrow
import wpiece.counts
import wpiece.documents
import wpiece.persistence
import wpiece.report
import wpiece.tokenizer
import wpiece.training
import wpiece.transformers_bridge

from conftest import TOKENIZER_JSON, VOCAB_TXT, hf_bert


def test_docstring_examples_run() -> None:
    for module in (
        wpiece,
        wpiece.added_tokens,
        wpiece.persistence,
        wpiece.transformers_folder,
        wpiece.decoding,
        wpiece.transformers_bridge,
        wpiece.arrow,
        wpiece.counts,
        wpiece.documents,
        wpiece.tokenizer,
        wpiece.training,
        wpiece.report,
    ):
        result = doctest.testmod(module, raise_on_error=False)
        assert result.failed == 0, module.__name__
        assert result.attempted > 0


def test_vocab_lookups() -> None:
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    assert len(tok) == tok.get_vocab_size() == 30522
    assert tok.token_to_id("[CLS]") == 101
    assert tok.id_to_token(1996) == "the"
    assert tok.id_to_token(10**6) is None
    # One rule for ids, HF's: not an int is a TypeError, outside u32 an OverflowError.
    with pytest.raises(OverflowError):
        tok.id_to_token(-1)
    assert tok.token_to_id("not-a-token") is None
    assert tok.get_vocab()["hello"] == 7592


def test_options_override_file() -> None:
    cased = wpiece.Tokenizer.from_file(TOKENIZER_JSON, lowercase=False)
    assert cased.settings["lowercase"] is False
    assert cased.tokenize("Hello")[0] == "[UNK]"  # uncased vocab has no "H"
    no_accents = wpiece.Tokenizer.from_file(TOKENIZER_JSON, lowercase=False, strip_accents=True)
    assert no_accents.settings["strip_accents"] is True
    ws = wpiece.Tokenizer.from_file(TOKENIZER_JSON, pre_tokenizer="whitespace")
    assert ws.tokenize("hello, world") == ["hello", "##,", "world"]
    per_char = wpiece.Tokenizer.from_file(VOCAB_TXT, unknown="char")
    assert per_char.tokenize("a\u2603b") == ["a", "[UNK]", "##b"]


def test_custom_prefix_and_unk() -> None:
    tok = wpiece.Tokenizer(
        ["<unk>", "low", "er", "@@er"], unk_token="<unk>", continuing_subword_prefix="@@"
    )
    assert tok.tokenize("lower er lowx") == ["low", "@@er", "er", "<unk>"]
    assert tok.decode(tok.encode("lower").ids) == "lower"


def test_decode_cleanup_switch() -> None:
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    ids = tok.encode("Hello , world !").ids
    assert tok.decode(ids) == "hello, world!"
    tok.decoder_cleanup = False
    assert tok.decode(ids) == "hello , world !"
    assert tok.decode(ids, skip_special_tokens=False) == "[CLS] hello , world ! [SEP]"


@pytest.mark.parametrize("source", [VOCAB_TXT, TOKENIZER_JSON])
def test_pickle_round_trip(source) -> None:
    tok = wpiece.Tokenizer.from_file(source, lowercase=False)
    tok.enable_truncation(16)
    tok.no_padding()
    tok.decoder_cleanup = False
    clone = pickle.loads(pickle.dumps(tok))
    text = "Pickled Tokenizers keep SETTINGS, truncation and all: " * 3
    assert clone.encode(text).ids == tok.encode(text).ids
    assert len(clone.encode(text)) == 16
    assert clone.decoder_cleanup is False
    assert clone.settings == tok.settings


def test_pickle_per_char_unknowns() -> None:
    tok = wpiece.Tokenizer(["[UNK]", "a", "##b"], unknown="char")
    clone = pickle.loads(pickle.dumps(tok))
    assert clone.tokenize("axb") == ["a", "[UNK]", "##b"]


def test_saved_json_loads_in_hf_and_matches(tmp_path, en_lines) -> None:
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT, lowercase=False)
    tok.save(tmp_path / "tokenizer.json")
    hf = HFTokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for text in en_lines[:300] + ["[CLS] Ünïcode 中文 don't"]:
        h, w = hf.encode(text, en_lines[0]), tok.encode(text, en_lines[0])
        assert (h.ids, h.offsets, h.type_ids) == (w.ids, w.offsets, w.type_ids)
        assert hf.decode(h.ids) == tok.decode(w.ids)


def test_round_trips_of_both_formats(tmp_path) -> None:
    tok = wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    tok.save(tmp_path / "out/")
    assert (tmp_path / "out" / "vocab.txt").read_text(encoding="utf-8") == VOCAB_TXT.read_text(
        encoding="utf-8"
    )
    again = wpiece.Tokenizer.from_file(tmp_path / "out")
    text = "Round trips keep truncation: " + "word " * 200
    assert again.encode(text).ids == tok.encode(text).ids
    assert len(again.encode(text)) == 128  # the file's truncation and padding survive
    saved = json.loads((tmp_path / "out" / "tokenizer.json").read_text(encoding="utf-8"))
    original = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    assert saved["model"]["vocab"] == original["model"]["vocab"]
    assert saved["truncation"]["max_length"] == 128
    assert saved["padding"]["strategy"] == {"Fixed": 128}


def test_file_settings_are_applied() -> None:
    tok = wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    assert tok.truncation == {
        "max_length": 128,
        "stride": 0,
        "strategy": "longest_first",
        "direction": "right",
    }
    assert tok.padding is not None and tok.padding["length"] == 128
    enc = tok.encode("short")
    hf = HFTokenizer.from_file(str(TOKENIZER_JSON))
    assert enc.ids == hf.encode("short").ids and len(enc) == 128


def test_batch_equals_single_and_runs_without_gil(en_lines) -> None:
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    batch = en_lines[:2000]
    singles = [tok.encode(t).ids for t in batch]
    assert [e.ids for e in tok.encode_batch(batch)] == singles
    # Threads calling into the released-GIL core at once all get right answers.
    results: dict[int, list] = {}

    def work(k: int) -> None:
        results[k] = [e.ids for e in tok.encode_batch(batch[k::4])]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        assert results[k] == singles[k::4]


def test_tokenize_matches_hf_tokens(en_lines) -> None:
    hf = hf_bert()
    tok = wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    for text in en_lines[:100]:
        assert tok.tokenize(text) == hf.encode(text, add_special_tokens=False).tokens


def test_encoding_fields() -> None:
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    enc = tok.encode("a b", "c")
    assert enc.type_ids == [0, 0, 0, 0, 1, 1]
    assert enc.special_tokens_mask == [1, 0, 0, 1, 0, 1]
    assert enc.attention_mask == [1] * 6
    assert len(enc) == 6 and "6" in repr(enc)


def test_cli_demo_runs(capsys) -> None:
    from wpiece.cli import main

    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "tokens: ['[CLS]', 'in', 'the', 'beginning'" in out
    assert "chars/token" in out and "trained a 2,000-token" in out


def test_thread_count_never_changes_results(en_lines) -> None:
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    batch = en_lines[:3000]
    one = tok.encode_batch_flat(batch, num_threads=1)
    two = tok.encode_batch_flat(batch, num_threads=2)
    assert one[0].tolist() == two[0].tolist() and one[1].tolist() == two[1].tolist()
    assert [e.ids for e in tok.encode_batch(batch[:200], num_threads=1)] == [
        e.ids for e in tok.encode_batch(batch[:200], num_threads=2)
    ]
    with pytest.raises(ValueError, match="num_threads"):
        tok.encode_batch(batch, num_threads=0)


def test_parallel_encoding_works_after_fork(en_lines) -> None:
    """A forked child must not wait on the parent's (absent) worker threads."""
    import os

    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    batch = en_lines[:2000]
    expected = tok.encode_batch_flat(batch)[0].tolist()  # the parent's pool is up
    pid = os.fork()
    if pid == 0:  # child: exit code tells the parent what happened
        ok = tok.encode_batch_flat(batch)[0].tolist() == expected
        os._exit(0 if ok else 1)
    wait_for_child(pid, "encoding in a forked child hung")


def wait_for_child(pid: int, hung: str, deadline: float = 60.0) -> None:
    """Waits for the forked child `pid` to exit 0; kills it and fails with
    `hung` if it has not exited by `deadline` seconds."""
    import os
    import time

    start = time.monotonic()
    while time.monotonic() - start < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail(hung)


def test_reading_files_and_fitting_work_after_fork(tmp_path) -> None:
    """Reading a large file (UTF-8 checked and lines split on every thread)
    and the fit's pruning used rayon's global pool, whose workers a forked
    child lacks: the child hung. They now run on this process's own pools."""
    import os

    from wpiece import _core
    from wpiece.documents import read_file

    big = tmp_path / "big.txt"
    line = "the quick brown fox jumps over the lazy dog again and again\n"
    big.write_text(line * (3_000_000 // len(line)), encoding="utf-8")

    def work() -> tuple:
        text = _core.read_text(big)
        docs = sum(1 for _ in read_file(big))
        tok = wpiece.train_from_iterator([line] * 50, 60, fit=True)
        return len(text), docs, len(tok)

    expected = work()  # the parent's pools (and before, rayon's) are up
    pid = os.fork()
    if pid == 0:
        os._exit(0 if work() == expected else 1)
    wait_for_child(pid, "reading or fitting in a forked child hung")


def test_a_fork_while_other_threads_start_pools_never_hangs_the_child() -> None:
    """Threads of the parent start and look up thread pools while it forks
    (every call a new thread count: pools are built under the registry's
    lock); the child, which inherits whatever lock was held then, encodes."""
    import os
    import signal
    import threading
    import time
    import warnings

    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    stop = threading.Event()

    def churn(k: int) -> None:
        n = k
        while not stop.is_set():
            # Past 64 KiB (smaller batches run inline, on no pool).
            tok.encode_batch(["a a a"] * 13_200, num_threads=1 + n % 7)
            n += 1

    threads = [threading.Thread(target=churn, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    hung = 0
    try:
        for _ in range(150):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads
                pid = os.fork()
            if pid == 0:
                try:
                    signal.alarm(10)
                    ok = [e.ids for e in tok.encode_batch(["a"])] == [[101, 1037, 102]]
                    os._exit(0 if ok else 1)
                finally:
                    os._exit(2)
            start = time.monotonic()
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() - start > 30:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                    status = -1
                    break
                time.sleep(0.002)
            if status != 0:
                hung += 1
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert hung == 0, f"{hung} of 150 forked children hung or failed"


def test_encode_files_plain_gz_separator_and_jsonl(tmp_path, en_lines) -> None:
    import gzip

    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    docs = en_lines[:500]
    expected = [e.ids for e in tok.encode_batch(docs)]
    (tmp_path / "a.txt").write_text("\n".join(docs[:200]) + "\n", encoding="utf-8")
    with gzip.open(tmp_path / "b.txt.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(docs[200:]) + "\n")
    (tmp_path / "c.txt").write_text("<|end|>".join(docs) + "<|end|>", encoding="utf-8")
    with open(tmp_path / "d.jsonl", "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps({"text": d, "n": 1}) + "\n")
    runs = [
        tok.encode_files([tmp_path / "a.txt", tmp_path / "b.txt.gz"]),
        tok.encode_files(str(tmp_path / "c.txt"), separator="<|end|>"),
        tok.encode_files(tmp_path / "d.jsonl", jsonl_field="text", num_threads=1),
        tok.encode_files([tmp_path / "a.txt", tmp_path / "b.txt.gz"], mmap=False),
    ]
    for ids, rows in runs:
        assert [ids[rows[i] : rows[i + 1]].tolist() for i in range(len(rows) - 1)] == expected
    with pytest.raises(FileNotFoundError):
        tok.encode_files(tmp_path / "missing.txt")
    with pytest.raises(ValueError, match=r"d.jsonl:1: no string field 'body'|no string field"):
        tok.encode_files(tmp_path / "d.jsonl", jsonl_field="body")
    (tmp_path / "bad.txt").write_bytes(b"fine\n\xff\n")
    with pytest.raises(ValueError, match="invalid UTF-8 at byte offset 5"):
        tok.encode_files(tmp_path / "bad.txt")
    with pytest.raises(IsADirectoryError, match="is a folder"):
        tok.encode_files(tmp_path)
    (tmp_path / "empty.txt").write_bytes(b"")
    ids, rows = tok.encode_files([tmp_path / "empty.txt", tmp_path / "a.txt"])
    assert ids.tolist() == runs[0][0][: rows[-1]].tolist() and len(rows) == 201
