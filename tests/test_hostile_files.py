"""Hostile files and paths: every reader refuses what is not a regular file
with an error that says what it is (never a hang or reading forever), vocab.txt
means what it means to HF, and every writer leaves the old file or set whole
when it fails (a full disk) and keeps modes and symlinks."""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import shutil
import stat
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from tokenizers.models import WordPiece as HFWordPiece

import wpiece

from conftest import TOKENIZER_JSON, VOCAB_TXT

SMALL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "##s"]


def all_readers(path: Path) -> list:
    """Every public call that reads a file given by path."""
    tok = wpiece.Tokenizer(SMALL)
    return [
        lambda: wpiece.Tokenizer.from_file(path),
        lambda: wpiece.train(path, vocab_size=50),
        lambda: tok.encode_files(path),
        lambda: tok.encode_files(path, mmap=False),
    ]


# ----- item 13: FIFOs and devices are refused, not read --------------------


def test_fifo_without_writer_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "vocab.txt"
    os.mkfifo(fifo)
    for read in all_readers(fifo):
        started = time.monotonic()
        with pytest.raises(ValueError, match="not a regular file \\(a FIFO\\)"):
            read()
        assert time.monotonic() - started < 1


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_devices_are_refused_not_read(device: str) -> None:
    for read in all_readers(Path(device)):
        with pytest.raises(ValueError, match="not a regular file \\(a character device\\)"):
            read()


def test_folder_missing_file_and_missing_folder_are_told_apart(tmp_path: Path) -> None:
    for read in all_readers(tmp_path / "nope" / "x.txt"):
        with pytest.raises(FileNotFoundError, match="no such folder"):
            read()
    for read in all_readers(tmp_path / "x.txt"):
        with pytest.raises(FileNotFoundError, match="no such file"):
            read()
    (tmp_path / "sub").mkdir()
    for read in all_readers(tmp_path / "sub")[1:]:  # from_file takes folders
        with pytest.raises(IsADirectoryError, match="is a folder"):
            read()


def test_symlink_loop_is_an_os_error(tmp_path: Path) -> None:
    loop = tmp_path / "loop.txt"
    os.symlink(loop, loop)
    for read in all_readers(loop):
        with pytest.raises(OSError, match="loop.txt"):
            read()


def test_non_utf8_file_names(tmp_path: Path) -> None:
    name = os.path.join(os.fsencode(tmp_path), b"vocab-\xff.txt")
    with open(name, "wb") as f:
        f.write("\n".join(SMALL).encode())
    tok = wpiece.Tokenizer.from_file(os.fsdecode(name))
    assert tok.encode("hellos").tokens == ["[CLS]", "hello", "##s", "[SEP]"]
    ids, rows = tok.encode_files(os.fsdecode(name))
    assert len(rows) == len(SMALL) + 1


def test_unreadable_file_is_a_permission_error(tmp_path: Path) -> None:
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(SMALL), encoding="utf-8")
    path.chmod(0)
    if os.geteuid() != 0:
        with pytest.raises(PermissionError):
            wpiece.Tokenizer.from_file(path)
        return
    # Root reads anything: check as an unprivileged user in a child process.
    tmp_path.chmod(0o755)
    code = (
        "import os, sys, wpiece\n"
        "os.setgid(65534); os.setuid(65534)\n"
        "try:\n"
        f"    wpiece.Tokenizer.from_file({str(path)!r})\n"
        "except PermissionError as e:\n"
        "    print('PermissionError', e); sys.exit(0)\n"
        "sys.exit(1)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "permission denied" in out.stdout.lower() and "vocab.txt" in out.stdout


def test_gzip_bomb_and_broken_gzip(tmp_path: Path) -> None:
    import gzip

    broken = tmp_path / "broken.txt.gz"
    broken.write_bytes(gzip.compress(b"hello world\n" * 1000)[:-20])
    tok = wpiece.Tokenizer(SMALL)
    with pytest.raises(OSError, match="broken.txt.gz"):
        tok.encode_files(broken)
    with pytest.raises((OSError, ValueError), match="broken.txt.gz"):
        wpiece.train(broken, vocab_size=50)


def test_json_lines_opening_with_a_byte_order_mark_read_as_arrow_reads_them(
    tmp_path: Path,
) -> None:
    """Editors on Windows save JSON Lines with a UTF-8 byte order mark;
    Arrow's reader (and so HF datasets) skips it. A mark inside a string
    stays text."""
    import gzip

    import pyarrow.json as pj

    rows = [{"text": "Hello world"}, {"text": "\ufeffkept inside"}, {"text": "third one"}]
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
    plain = tmp_path / "bom.jsonl"
    plain.write_bytes(b"\xef\xbb\xbf" + body)
    zipped = tmp_path / "bom.jsonl.gz"
    zipped.write_bytes(gzip.compress(b"\xef\xbb\xbf" + body))
    texts = pj.read_json(plain).column("text").to_pylist()
    assert texts == [r["text"] for r in rows]
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    want = [e.ids for e in tok.encode_batch(texts)]
    for path in (plain, zipped):
        for mmap in (True, False):
            ids, bounds = tok.encode_files(path, jsonl_field="text", mmap=mmap)
            got = [ids[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:])]
            assert got == want, (path.name, mmap)
        counts = wpiece.count_words(path, jsonl_field="text")
        assert counts == wpiece.count_words(texts)
    # As a stream (the CLI's standard input, a Python file object), and by
    # the documents reader of files.
    from wpiece.documents import read_documents, read_jsonl

    with open(plain, "rb") as f:
        assert list(read_jsonl(f, "text")) == texts
    assert list(read_documents(plain, jsonl_field="text")) == texts


def test_json_lines_without_their_field_are_refused_everywhere(tmp_path: Path) -> None:
    # Read as lines they gave counts of '{', '"' and 'text', and ids of the
    # JSON syntax, silently.
    import gzip

    from wpiece import _core
    from wpiece._file_parts import plan_parts
    from wpiece.documents import FieldRequiredError, read_documents, read_file

    body = b'{"text": "hello world"}\n{"text": "more text"}\n'
    (tmp_path / "d.jsonl").write_bytes(body)
    (tmp_path / "d.jsonl.gz").write_bytes(gzip.compress(body))
    (tmp_path / "D.JSONL").write_bytes(body)
    # NDJSON is the same format under another name.
    (tmp_path / "d.ndjson").write_bytes(body)
    (tmp_path / "D.NDJSON.GZ").write_bytes(gzip.compress(body))
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    texts = ["hello world", "more text"]
    names = ("d.jsonl", "d.jsonl.gz", "D.JSONL", "d.ndjson", "D.NDJSON.GZ")
    for name in names:
        path = tmp_path / name
        calls = [
            wpiece.count_words,
            lambda p: wpiece.WordCounts().add_files(str(p)),
            lambda p: wpiece.train(p, vocab_size=60),
            tok.encode_files,
            read_file,
            lambda p: list(read_documents(p)),
            lambda p: plan_parts(p, 2),
        ]
        for call in calls:
            with pytest.raises(FieldRequiredError, match="needs the name of the field"):
                call(path)
        # The core refuses too (a worker of a cluster reads through it).
        for counter in (_core.WordCounter(num_threads=1), _core.WordCounter(num_threads=2)):
            with pytest.raises(ValueError, match=rf"(?i){name}.*needs the name of the field"):
                counter.add_file(str(path))
        # With the field, each reads the texts.
        assert wpiece.count_words(path, jsonl_field="text") == wpiece.count_words(texts)
        ids, bounds = tok.encode_files(path, jsonl_field="text")
        assert ids.tolist() == sum((e.ids for e in tok.encode_batch(texts)), [])
        assert list(read_file(path, "text")) == texts
        assert len(plan_parts(path, 2, jsonl_field="text")) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


def test_documents_longer_than_a_read_block_and_many_blocks_read_whole(tmp_path: Path) -> None:
    # The core reads files in blocks of 1 MiB: a document spanning three of
    # them, blocks holding no document end, and many blocks after.
    import gzip

    from wpiece.documents import read_file

    lines = ["x" * 3_000_000, "short", "", "y" * 1_500_000] + [f"l{k}" for k in range(300_000)]
    body = ("\n".join(lines) + "\n").encode()
    (tmp_path / "big.txt").write_bytes(body)
    (tmp_path / "big.txt.gz").write_bytes(gzip.compress(body, compresslevel=1))
    for name in ("big.txt", "big.txt.gz"):
        assert list(read_file(tmp_path / name)) == lines, name


def test_gzip_names_in_any_case_are_inflated_and_planned_whole(tmp_path: Path) -> None:
    # "A.TXT.GZ" was read as raw bytes ("invalid UTF-8") by every reader,
    # and a cluster's plan cut it into byte ranges the core then refused.
    import gzip

    from wpiece._file_parts import plan_parts

    texts = ["hello world", "more text here"] * 40_000
    body = "".join(t + "\n" for t in texts).encode()
    for name in ("A.TXT.GZ", "b.txt.Gz", "C.JSONL.GZ"):
        path = tmp_path / name
        if "JSONL" in name:
            body_json = "".join(json.dumps({"text": t}) + "\n" for t in texts).encode()
            path.write_bytes(gzip.compress(body_json))
            field = "text"
        else:
            path.write_bytes(gzip.compress(body))
            field = None
        assert wpiece.count_words(path, jsonl_field=field) == wpiece.count_words(texts), name
        tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
        ids, bounds = tok.encode_files(path, jsonl_field=field)
        assert len(bounds) == len(texts) + 1, name
        parts = plan_parts(path, 4, part_bytes=1000, jsonl_field=field)
        assert [p.byte_range for p in parts] == [None], name


# ----- item 3: vocab.txt lines as HF reads them ----------------------------


@pytest.mark.parametrize(
    "content",
    [
        "[UNK]\nx\u2028y\nhello\nworld\n",
        "[UNK]\nx\x85y\nhello\nworld",
        "[UNK]\r\nx\x0cy\r\nhello\r\nworld\r\n",
        "[UNK]\nx\x1cy\x1dz\x1e\nhello \t\nworld\u3000\n",
        "[UNK]\n\nhello\nworld\n",
        "\ufeff[PAD]\n[UNK]\nhello\nworld\r",
        "[UNK]\nhello\rworld\nworld\n",
    ],
)
def test_vocab_txt_lines_as_hf(tmp_path: Path, content: str) -> None:
    path = tmp_path / "vocab.txt"
    path.write_bytes(content.encode())
    hf = HFWordPiece.read_file(str(path))
    ours = wpiece.Tokenizer.from_file(path, continuing_subword_prefix="##").get_vocab()
    assert ours == hf
    tok = wpiece.Tokenizer.from_file(path)
    hf_ids = [hf.get(t, hf["[UNK]"]) for t in ("hello", "world")]
    assert tok.encode("hello world", add_special_tokens=False).ids == hf_ids


# ----- items 4, 5, 16: writers ---------------------------------------------


def char_tokenizer() -> wpiece.Tokenizer:
    """One that tokenizer.json cannot express (per-character unknowns)."""
    return wpiece.Tokenizer(SMALL, unknown="char")


def test_folder_save_removes_a_stale_tokenizer_json(tmp_path: Path) -> None:
    wpiece.Tokenizer.from_file(TOKENIZER_JSON).save(tmp_path / "tok")
    assert (tmp_path / "tok" / "tokenizer.json").exists()
    char_tokenizer().save(tmp_path / "tok")
    assert sorted(p.name for p in (tmp_path / "tok").iterdir()) == [
        "vocab.txt",
        "wpiece_tokenizer.json",
    ]
    again = wpiece.Tokenizer.from_file(tmp_path / "tok")
    assert again.get_vocab() == char_tokenizer().get_vocab()
    assert again.settings == char_tokenizer().settings
    out = subprocess.run(
        [sys.executable, "-m", "wpiece", "encode", "--tokenizer", str(tmp_path / "tok"), "-"],
        input="hello\n",
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0 and out.stdout.strip() == "[2, 5, 3]"


@pytest.mark.parametrize("token", ["[PAD]\n[CLS]", "<x> ", "<y>\r"])
def test_a_token_no_vocab_txt_line_can_hold_is_never_written_to_one(
    tmp_path: Path, token: str
) -> None:
    """vocab.txt is read a line per token, trailing whitespace dropped: such
    a token written there shifted every later id (or changed) silently."""
    tok = wpiece.train_from_iterator(
        ["the quick brown fox"] * 5, 40, special_tokens=["[UNK]", token]
    )
    tok.save(tmp_path / "tok")  # tokenizer.json holds it: vocab.txt is left out
    assert sorted(p.name for p in (tmp_path / "tok").iterdir()) == [
        "tokenizer.json",
        "tokenizer_config.json",
        "training_record.json",
    ]
    back = wpiece.Tokenizer.from_file(tmp_path / "tok")
    assert back.get_vocab() == tok.get_vocab()
    assert back.encode("the fox").ids == tok.encode("the fox").ids
    with pytest.raises(ValueError, match="vocab.txt cannot hold the token"):
        tok.save(tmp_path / "v.txt")
    assert not (tmp_path / "v.txt").exists()
    # A tokenizer with per-character unknowns: its settings file holds it,
    # and an old vocab.txt in the folder goes with the old set.
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "vocab.txt").write_text("[UNK]\n")
    char = wpiece.Tokenizer(["[UNK]", token, "a"], unknown="char")
    char.save(tmp_path / "old")
    assert sorted(p.name for p in (tmp_path / "old").iterdir()) == ["wpiece_tokenizer.json"]
    assert wpiece.Tokenizer.from_file(tmp_path / "old").get_vocab() == char.get_vocab()
    with pytest.raises(ValueError, match="vocab.txt cannot hold the token"):
        char.save(tmp_path / "char.txt")


def test_a_device_or_fifo_is_never_replaced_by_a_saved_file(tmp_path: Path) -> None:
    """Saving renames a new file over the path: over a FIFO (or, as root,
    /dev/null) that put a regular file in its place."""
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    (tmp_path / "via.txt").symlink_to(fifo)
    (tmp_path / "tok").mkdir()
    os.mkfifo(tmp_path / "tok" / "vocab.txt")
    tok = wpiece.Tokenizer(SMALL)
    counts = wpiece.count_words(["hello world"])
    for save in (
        lambda: tok.save(fifo),
        lambda: tok.save(tmp_path / "via.txt"),
        lambda: counts.save(fifo),
        lambda: tok.save(tmp_path / "tok"),
    ):
        with pytest.raises(ValueError, match="not a regular file"):
            save()
    for path in (fifo, tmp_path / "tok" / "vocab.txt"):
        assert stat.S_ISFIFO(os.stat(path).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["pipe.txt", "tok", "via.txt"]
    assert os.listdir(tmp_path / "tok") == ["vocab.txt"]


def test_folder_save_removes_a_stale_training_record(tmp_path: Path) -> None:
    trained = wpiece.train_from_iterator(["hello world"] * 3, 40)
    trained.save(tmp_path / "tok")
    assert (tmp_path / "tok" / "training_record.json").exists()
    wpiece.Tokenizer(SMALL).save(tmp_path / "tok")
    assert not (tmp_path / "tok" / "training_record.json").exists()


def test_file_save_keeps_mode_and_writes_through_symlinks(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o600)
    link = tmp_path / "vocab.txt"
    link.symlink_to(target)
    wpiece.Tokenizer(SMALL).save(link)
    assert link.is_symlink()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert target.read_text(encoding="utf-8").split() == SMALL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real.txt", "vocab.txt"]


def test_save_refuses_empty_and_dangling_paths(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="empty"):
        wpiece.Tokenizer(SMALL).save("")
    dangling = tmp_path / "vocab.txt"
    dangling.symlink_to(tmp_path / "nowhere" / "x.txt")
    with pytest.raises(ValueError, match="leads nowhere"):
        wpiece.Tokenizer(SMALL).save(dangling)


@pytest.fixture
def tiny_disk(tmp_path: Path):
    """A 64 KiB tmpfs (needs root: CI runs as root)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root and mount(8); CI runs as root")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], check=True)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def test_full_disk_leaves_the_old_folder_whole(tiny_disk: Path) -> None:
    small = wpiece.Tokenizer(SMALL)
    small.save(tiny_disk / "tok")
    before = {p.name: p.read_bytes() for p in (tiny_disk / "tok").iterdir()}
    big = wpiece.Tokenizer.from_file(VOCAB_TXT)  # 230 KB of vocab: does not fit
    with pytest.raises(OSError, match="No space left"):
        big.save(tiny_disk / "tok")
    after = {p.name: p.read_bytes() for p in (tiny_disk / "tok").iterdir()}
    assert after == before
    with pytest.raises(OSError, match="No space left"):
        big.save(tiny_disk / "tok" / "vocab.txt")
    assert {p.name: p.read_bytes() for p in (tiny_disk / "tok").iterdir()} == before


def test_full_disk_cli_encode_leaves_nothing(tiny_disk: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("hello world\n" * 20000, encoding="utf-8")
    for out in ("ids.jsonl", "ids.npy"):
        res = subprocess.run(
            [
                sys.executable,
                "-m",
                "wpiece",
                "encode",
                "--tokenizer",
                str(VOCAB_TXT),
                str(corpus),
                "-o",
                str(tiny_disk / out),
            ],
            capture_output=True,
            text=True,
        )
        assert res.returncode == 2, res.stderr
        assert "No space left" in res.stderr and "Traceback" not in res.stderr
        assert list(tiny_disk.iterdir()) == []


def read_while_saving(
    folder: Path, tokenizers: list[wpiece.Tokenizer], saves: int, seen_in: Any
) -> set[Any]:
    """What two reader threads see (``seen_in`` of each tokenizer they load
    from ``folder``) while ``tokenizers`` are saved there in turn; a reader
    may meet the folder between an unlink and nothing else (no file to
    load: never a mix), and any other error or warning fails the test."""
    seen: set[Any] = set()
    stop = threading.Event()
    errors: list[BaseException] = []

    def read() -> None:
        while not stop.is_set():
            try:
                seen.add(seen_in(folder))
            except FileNotFoundError:
                pass
            except BaseException as e:  # noqa: BLE001 - collected and asserted below
                errors.append(e)

    readers = [threading.Thread(target=read) for _ in range(2)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no save is cut off here
        for t in readers:
            t.start()
        for k in range(saves):
            tokenizers[k % len(tokenizers)].save(folder)
        stop.set()
        for t in readers:
            t.join()
    assert errors == []
    return seen


def test_concurrent_readers_see_old_or_new_set(tmp_path: Path) -> None:
    a = wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    b = char_tokenizer()
    folder = tmp_path / "tok"
    a.save(folder)
    seen = read_while_saving(
        folder, [b, a], 20, lambda f: len(wpiece.Tokenizer.from_file(f, unknown="char"))
    )
    assert seen <= {len(a), len(b)}


def test_concurrent_readers_pair_each_tokenizer_json_with_its_config(tmp_path: Path) -> None:
    a, b = wpiece.Tokenizer.from_file(TOKENIZER_JSON), wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    b.add_tokens(["covid19"])
    b.clean_up_tokenization_spaces = True
    folder = tmp_path / "tok"
    a.save(folder)

    def seen_in(f: Path) -> tuple[int, bool]:
        tok = wpiece.Tokenizer.from_file(f)
        return len(tok), tok.clean_up_tokenization_spaces

    seen = read_while_saving(folder, [b, a], 30, seen_in)
    assert seen <= {(len(a), False), (len(b), True)}


def test_a_reader_between_two_sets_takes_none_of_the_other_sets_config(tmp_path: Path) -> None:
    # The states a reader can meet while saves replace a folder's set (each
    # is the folder for an instant of some save; the concurrent test above
    # met the first): the config of a tokenizer.json set beside a vocab.txt
    # alone was refused as a slow tokenizer's config naming another class.
    a = wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    a.encode_special_tokens = a.clean_up_tokenization_spaces = True
    b = char_tokenizer()
    folder = tmp_path / "tok"
    a.save(folder)
    config = (folder / "tokenizer_config.json").read_bytes()
    (folder / "tokenizer.json").unlink()  # between its removal and the next set's
    assert len(wpiece.Tokenizer.from_file(folder)) == len(a)
    # The next set (a tokenizer with no tokenizer.json form) in, the old
    # config not yet gone: its flags are not the new tokenizer's.
    b.save(folder)
    (folder / "tokenizer_config.json").write_bytes(config)
    got = wpiece.Tokenizer.from_file(folder)
    assert len(got) == len(b)
    assert not got.encode_special_tokens and not got.clean_up_tokenization_spaces


def test_a_config_is_paired_with_the_tokenizer_json_it_was_saved_with(tmp_path: Path) -> None:
    # A save renames tokenizer_config.json, then tokenizer.json: a reader in
    # between (or after a save cut off there) took the new config's flags
    # and settings for the old tokenizer. The config names its
    # tokenizer.json's digest; a reader waits for it while the config is new.
    from transformers import AutoTokenizer

    a, b = wpiece.Tokenizer.from_file(TOKENIZER_JSON), wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    b.add_tokens(["covid19"])
    b.clean_up_tokenization_spaces = b.encode_special_tokens = True
    b.enable_padding(direction="left")
    folder, other = tmp_path / "tok", tmp_path / "other"
    a.save(folder)
    b.save(other)
    shutil.copy(other / "tokenizer_config.json", folder / "tokenizer_config.json")

    def finish_the_save() -> None:
        time.sleep(0.2)
        os.replace(shutil.copy(other / "tokenizer.json", tmp_path / "t"), folder / "tokenizer.json")

    finishing = threading.Thread(target=finish_the_save)
    finishing.start()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = wpiece.Tokenizer.from_file(folder)
    finishing.join()
    assert len(got) == len(b) and got.clean_up_tokenization_spaces and got.encode_special_tokens
    assert got.to_transformers()(["a", "a b c"], padding=True)["attention_mask"][0][0] == 0
    # Not new any more (a save cut off between the renames): taken, with a
    # warning naming both.
    a.save(folder)
    shutil.copy(other / "tokenizer_config.json", folder / "tokenizer_config.json")
    now = time.time()
    os.utime(folder / "tokenizer.json", (now - 120, now - 120))
    os.utime(folder / "tokenizer_config.json", (now - 60, now - 60))
    with pytest.warns(UserWarning, match="saved with another tokenizer.json"):
        got = wpiece.Tokenizer.from_file(folder)
    assert len(got) == len(a) and got.clean_up_tokenization_spaces
    # A tokenizer.json newer than its config (edited by hand, or saved again
    # by transformers after tokens were added there) goes with it, unwarned.
    os.utime(folder / "tokenizer.json", (now, now))
    hf = AutoTokenizer.from_pretrained(other)
    hf.add_tokens(["plugh"])
    hf.save_pretrained(tmp_path / "hf")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(wpiece.Tokenizer.from_file(folder)) == len(a)
        assert len(wpiece.Tokenizer.from_file(tmp_path / "hf")) == len(b) + 1


# ----- items 7 and 19: ids and pickled encodings ---------------------------


def test_ids_follow_hfs_rule() -> None:
    import numpy as np

    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    for bad in ([7592.9], ["7592"], [None]):
        with pytest.raises(TypeError):
            tok.decode(bad)
    for bad in ([-1], [2**32], [99999999999]):
        with pytest.raises(OverflowError):
            tok.decode(bad)
        with pytest.raises(OverflowError):
            tok.id_to_token(bad[0])
    with pytest.raises(TypeError):
        tok.id_to_token(1.5)
    with pytest.raises(OverflowError):
        tok.decode(np.array([-1, 5], dtype=np.int64))
    assert tok.decode(np.array([7592], dtype=np.int64)) == "hello"
    assert tok.decode([np.int32(7592), 99999]) == "hello"  # unknown ids skipped, as HF
    for bad in (3.5, True, "8"):
        with pytest.raises(TypeError):
            tok.enable_truncation(bad)


def test_an_encoding_equals_its_pickle_when_added_tokens_show_other_strings() -> None:
    # A token that shows the spaces its lstrip took (" <ent>") kept that
    # string in the encoding, and beside it once pickled: == said they differ.
    import copy

    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    tok.add_tokens([wpiece.AddedToken("<ent>", lstrip=True, rstrip=True)])
    tok.enable_truncation(4, stride=1)
    enc = tok.encode("a <ent> b  <ent>  c d e f")
    assert " <ent> " in [t for e in [enc, *enc.overflowing] for t in e.tokens]
    for again in (pickle.loads(pickle.dumps(enc)), copy.deepcopy(enc)):
        assert again == enc and enc == again
        assert [o.tokens for o in again.overflowing] == [o.tokens for o in enc.overflowing]
    other = tok.encode("a <ent> b  <ent>  c d e g")
    assert other != enc  # a column of an overflowing part differs


def test_save_paths_say_what_they_are(tmp_path) -> None:
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    # An upper-case .JSON was saved (and read) as a vocab.txt.
    tok.save(tmp_path / "t.JSON")
    assert json.loads((tmp_path / "t.JSON").read_text())["model"]["type"] == "WordPiece"
    assert wpiece.Tokenizer.from_file(tmp_path / "t.JSON").encode("hello").ids == [
        101,
        7592,
        102,
    ]
    # A file without a suffix is no folder: it failed with a bare "File exists".
    (tmp_path / "plain").write_text("keep")
    with pytest.raises(ValueError, match="is a file, and a path without a suffix"):
        tok.save(tmp_path / "plain")
    assert (tmp_path / "plain").read_text() == "keep"


def _encode_in_worker(text: str) -> wpiece.Encoding:
    return wpiece.Tokenizer.from_file(VOCAB_TXT).encode(text)


def test_encodings_pickle_and_cross_processes() -> None:
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    tok.enable_padding(length=12, pad_id=100)
    enc = tok.encode("Hello, world!", "Pairs too.")
    again = pickle.loads(pickle.dumps(enc))
    assert again == enc
    for field in ("ids", "type_ids", "tokens", "offsets", "attention_mask", "special_tokens_mask"):
        assert getattr(again, field) == getattr(enc, field)
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        got = pool.map(_encode_in_worker, ["Hello, world!", "Goodbye."])
    assert [e.ids for e in got] == [
        tok.encode(t).ids[: len(e.ids)] for t, e in zip(["Hello, world!", "Goodbye."], got)
    ]
    assert got[0].tokens == ["[CLS]", "hello", ",", "world", "!", "[SEP]"]
