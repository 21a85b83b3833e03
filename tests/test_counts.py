"""Word counts as a value (wpiece.counts): counting in parts and merging is
exact, merging keeps first-appearance order, the file format survives a
round trip and refuses every damaged file, Arrow columns count as lists."""

from __future__ import annotations

import gzip
import json
import os
import pickle
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wpiece
from wpiece import WordCounts, count_words

from conftest import EN_FIXTURE, VOCAB_TXT, examples

LINES = EN_FIXTURE.read_text(encoding="utf-8").splitlines()[:3000]

# Words that look like pieces, prefixes, accents to strip, CJK, controls.
WORDS = st.sampled_from(
    ["##a", "@@", "a", "A", "Ünï", "日本", "x\u0301", "##", "the", "The", "!", "\x00", "ab c"]
)
DOCS = st.lists(st.lists(WORDS, max_size=6).map(" ".join), max_size=25)


def reference_merge(parts: list[list[tuple[str, int]]]) -> list[tuple[str, int]]:
    """Counts of parts added in order, first appearance kept (plain Python)."""
    total: dict[str, int] = {}
    for part in parts:
        for w, c in part:
            total[w] = total.get(w, 0) + c
    return list(total.items())


@settings(max_examples=examples(60), deadline=None)
@given(DOCS, st.lists(st.integers(0, 25), max_size=4), st.booleans())
def test_parts_merged_in_order_count_as_the_whole(
    docs: list[str], cuts: list[int], lowercase: bool
) -> None:
    bounds = sorted({0, len(docs), *(min(c, len(docs)) for c in cuts)})
    parts = [count_words(docs[a:b], lowercase=lowercase) for a, b in zip(bounds, bounds[1:])] or [
        WordCounts(lowercase=lowercase)
    ]
    merged = parts[0].copy()
    for p in parts[1:]:
        merged += p
    whole = count_words(docs, lowercase=lowercase) if docs else WordCounts(lowercase=lowercase)
    assert merged == whole
    assert merged.items() == reference_merge([p.items() for p in parts])
    assert sum(parts[1:], parts[0]) == whole


@pytest.mark.parametrize("score", ["likelihood", "wordpiece"])
def test_training_on_merged_parts_gives_the_vocab_of_the_whole(score: str) -> None:
    whole = wpiece.train_from_iterator(LINES, vocab_size=600, score=score)
    parts = [count_words(LINES[a : a + 700]) for a in range(0, len(LINES), 700)]
    merged = parts[0]
    for p in parts[1:]:
        merged = merged + p
    from_parts = wpiece.train_from_counts(merged, vocab_size=600, score=score)
    assert from_parts.get_vocab() == whole.get_vocab()
    assert from_parts.settings == whole.settings


def test_files_globs_and_documents_count_alike(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("\n".join(LINES[:100]) + "\n", encoding="utf-8")
    with gzip.open(tmp_path / "b.txt.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(LINES[100:200]) + "\n")
    expected = count_words(LINES[:200])
    assert count_words(str(tmp_path / "*.txt*")) == expected
    assert count_words([tmp_path / "a.txt", tmp_path / "b.txt.gz"]) == expected
    assert count_words(iter(LINES[:200]), num_threads=1) == expected
    (tmp_path / "c.jsonl").write_text(
        "".join(json.dumps({"text": t, "id": i}) + "\n" for i, t in enumerate(LINES[:200])),
        encoding="utf-8",
    )
    assert count_words(tmp_path / "c.jsonl", jsonl_field="text") == expected
    with pytest.raises(ValueError, match="no string field 'body'"):
        count_words(tmp_path / "c.jsonl", jsonl_field="body")
    # A list of str is documents, not paths.
    assert count_words([str(tmp_path / "a.txt")]).most_common(1)[0][0] == "/"
    with pytest.raises(FileNotFoundError):
        count_words(tmp_path / "missing.txt")
    with pytest.raises(TypeError):
        count_words("one string", lowercase=True, speed=1)
    with pytest.raises(TypeError):
        count_words([b"bytes"])
    with pytest.raises(ValueError):
        count_words(["x"], jsonl_field="text")
    with pytest.raises(ValueError):
        count_words(pa.array(["x"]), jsonl_field="text")


def test_reading_and_changing() -> None:
    c = count_words(["b a b c", "c c d"])
    assert c.items() == [("b", 2), ("a", 1), ("c", 3), ("d", 1)]
    assert (len(c), c["c"], c["zzz"], c.total()) == (4, 3, 0, 7)
    assert "a" in c and "zzz" not in c and 3 not in c
    assert list(c) == ["b", "a", "c", "d"]
    ranked = sorted(c.items(), key=lambda wc: -wc[1])  # stable: first appearance
    assert c.most_common() == ranked
    assert [c.most_common(n) for n in range(6)] == [ranked[:n] for n in range(6)]
    with pytest.raises(ValueError):
        c.most_common(-1)
    assert c.prune(2) is c
    assert c.items() == [("b", 2), ("c", 3)]
    with pytest.raises(ValueError):
        c.prune(-1)
    with pytest.raises(TypeError):
        _ = c[3]  # type: ignore[index]
    assert repr(c) == "WordCounts(2 words, 5 counted)"


def test_merging_refuses_other_options_and_overflow() -> None:
    a = count_words(["Hello"])
    # The message names each option that differs, and nothing else.
    with pytest.raises(ValueError) as caught:
        a.update(count_words(["Hello"], lowercase=False))
    assert str(caught.value) == (
        "cannot merge word counts split otherwise: their options differ: "
        "these lowercase=True, the other's lowercase=False"
    )
    with pytest.raises(ValueError) as caught:
        a + count_words(["x"], pre_tokenizer="whitespace", clean_text=False)
    assert str(caught.value).endswith(
        "these clean_text=True, the other's clean_text=False; "
        'these pre_tokenizer="bert", the other\'s pre_tokenizer="whitespace"'
    )
    # strip_accents=None means "as lowercase": the same split.
    assert (a + count_words(["x"], strip_accents=True)).items() == [("hello", 1), ("x", 1)]
    # Without a normalizer its options change nothing.
    raw = count_words(["A"], normalize=False, lowercase=False)
    raw.update(count_words(["A"], normalize=False))
    assert raw.items() == [("A", 2)]
    # a += a doubles.
    a += a
    assert a.items() == [("hello", 2)]
    # A count past 2^64-1 is an OverflowError and changes nothing.
    big = WordCounts()
    big._core.add_counts([("x", 2**64 - 2)])
    other = WordCounts()
    other._core.add_counts([("new", 1), ("x", 5)])
    with pytest.raises(OverflowError):
        big.update(other)
    assert big.items() == [("x", 2**64 - 2)]
    assert big.total() == 2**64 - 2
    # Counting more text into counts near the limit is checked too.
    with pytest.raises(OverflowError):
        big.add_texts(["x y"] * 3)
    assert big.items() == [("x", 2**64 - 2)]
    loaded = WordCounts.from_bytes(big.to_bytes())
    with pytest.raises(OverflowError):
        loaded.add_texts(["x"] * 2)
    loaded.add_texts(["x"])
    assert loaded.items() == [("x", 2**64 - 1)]
    with pytest.raises(TypeError):
        big.update({"x": 1})  # type: ignore[arg-type]
    assert a.__add__(3) is NotImplemented


def test_pickle_save_and_load_round_trip(tmp_path: Path) -> None:
    c = count_words(
        LINES[:500] + ["##a @@ 日本 x\u0301"], lowercase=False, pre_tokenizer="whitespace"
    )
    assert pickle.loads(pickle.dumps(c)) == c
    path = tmp_path / "counts.wpc"
    c.save(path)
    back = WordCounts.load(path)
    assert back == c and back.options == c.options and back.items() == c.items()
    assert sorted(os.listdir(tmp_path)) == ["counts.wpc"]  # no temp file left
    # Compact: gzip of varints, fewer bytes per word type than the words' own text.
    assert path.stat().st_size < sum(len(w.encode()) for w in c)
    # Saving over a file replaces it whole.
    count_words(["other"]).save(path)
    assert WordCounts.load(path).items() == [("other", 1)]
    assert WordCounts.from_bytes(c.to_bytes()) == c


def test_damaged_and_foreign_files_raise_clear_errors(tmp_path: Path) -> None:
    data = count_words(LINES[:50]).to_bytes()
    path = tmp_path / "c.wpc"
    for cut in (0, 5, 12, 20, len(data) // 2, len(data) - 4, len(data) - 1):
        path.write_bytes(data[:cut])
        with pytest.raises(ValueError, match="not a valid word counts file"):
            WordCounts.load(path)
    for at in range(12, len(data), max(1, len(data) // 40)):
        bad = bytearray(data)
        bad[at] ^= 0x55
        path.write_bytes(bytes(bad))
        try:
            loaded = WordCounts.load(path)
        except ValueError:
            continue
        # Only gzip's unchecked header fields (time, OS) may change unnoticed.
        assert at < 22 and loaded == count_words(LINES[:50]), at
    path.write_bytes(data + b"\0")
    with pytest.raises(ValueError):
        WordCounts.load(path)
    path.write_bytes(b"wpcounts" + (9).to_bytes(4, "little") + data[12:])
    with pytest.raises(ValueError, match="version 9"):
        WordCounts.load(path)
    path.write_text("the 5\ncat 3\n")
    with pytest.raises(ValueError, match="no wpcounts header"):
        WordCounts.load(path)
    with pytest.raises(FileNotFoundError):
        WordCounts.load(tmp_path / "missing.wpc")
    with pytest.raises(IsADirectoryError):
        WordCounts.load(tmp_path)
    with pytest.raises(ValueError):
        WordCounts.from_bytes(b"")


def test_train_from_counts_follows_the_counts_options() -> None:
    cased = count_words(LINES[:300], lowercase=False)
    tok = wpiece.train_from_counts(cased, vocab_size=300)
    assert tok.settings["lowercase"] is False
    assert wpiece.train_from_counts(cased, vocab_size=300, lowercase=False).get_vocab() == (
        tok.get_vocab()
    )
    with pytest.raises(ValueError, match="lowercase"):
        wpiece.train_from_counts(cased, vocab_size=300, lowercase=True)
    with pytest.raises(ValueError, match="pre_tokenizer"):
        wpiece.train_from_counts(cased, vocab_size=300, pre_tokenizer="whitespace")
    # The counts are left as they were.
    assert cased == count_words(LINES[:300], lowercase=False)


# Arrow ---------------------------------------------------------------------

ROWS = st.lists(st.one_of(st.none(), st.lists(WORDS, max_size=5).map(" ".join)), max_size=30)


@settings(max_examples=examples(60), deadline=None)
@given(ROWS, st.booleans(), st.integers(0, 5), st.integers(0, 30))
def test_arrow_columns_count_as_their_rows(
    rows: list[str | None], large: bool, start: int, length: int
) -> None:
    kind = pa.large_string() if large else pa.string()
    array = pa.array(rows, type=kind).slice(start, length)
    expected_rows = [r for r in rows[start : start + length] if r is not None]
    expected = count_words(expected_rows) if expected_rows else WordCounts()
    assert count_words(array) == expected
    half = len(array) // 2
    chunked = pa.chunked_array([array.slice(0, half), array.slice(half)], type=kind)
    assert count_words(chunked) == expected


def test_arrow_inputs_that_are_not_string_columns() -> None:
    with pytest.raises(TypeError, match="string"):
        count_words(pa.array([1, 2]))
    with pytest.raises(TypeError, match="string"):
        count_words(pa.array([b"x"]))
    assert len(count_words(pa.array([], type=pa.string()))) == 0
    assert len(count_words(pa.array([None, None], type=pa.string()))) == 0


def test_hostile_arrow_buffers_raise_value_errors() -> None:
    # pyarrow refuses some of these when building an array; the core checks
    # the buffers it is handed whatever made them.
    cases = [
        (np.array([0, 3, 1], np.int32), b"abc", None, 0, 2),  # offsets out of order
        (np.array([0, 2, 50], np.int32), b"abc", None, 0, 2),  # past the data
        (np.array([-4, 2], np.int64), b"abc", None, 0, 1),  # negative
        (np.array([0, 2], np.int32), b"\xff\xfe", None, 0, 1),  # not UTF-8
        (np.array([0, 1], np.int32), b"a", None, 1, 1),  # rows past the offsets
        (np.array([0] * 10, np.int32), b"", np.array([255], np.uint8), 0, 9),  # short bitmap
    ]
    for offsets, data, bits, offset, n in cases:
        with pytest.raises(ValueError, match="invalid Arrow string array"):
            WordCounts()._core.add_arrow(offsets, np.frombuffer(data, np.uint8), bits, offset, n)
    with pytest.raises(TypeError):
        WordCounts()._core.add_arrow(
            np.array([0.0, 1.0]), np.frombuffer(b"a", np.uint8), None, 0, 1
        )
    # A forged array pyarrow builds without checking: bytes that are not UTF-8.
    forged = pa.Array.from_buffers(
        pa.string(),
        1,
        [None, pa.py_buffer(np.array([0, 2], np.int32).tobytes()), pa.py_buffer(b"\xff\xfe")],
    )
    with pytest.raises(ValueError, match="not UTF-8"):
        count_words(forged)


def test_count_reference_on_real_text() -> None:
    # Whitespace-only splitting without a normalizer is str.split on this text.
    counts = count_words(LINES, normalize=False, pre_tokenizer="whitespace")
    expected = Counter(w for line in LINES for w in line.split())
    assert dict(counts.items()) == dict(expected)
    first_seen = list(dict.fromkeys(w for line in LINES for w in line.split()))
    assert list(counts) == first_seen


BOMB_CHILD = """
import resource, sys, zlib
import wpiece
# A deflate block of 1 MiB of zeros that depends on nothing before it (full
# flush), repeated: 2 GiB of zeros in about 2 MB of file.
c = zlib.compressobj(9, zlib.DEFLATED, 31)
head = c.compress(b"") + c.flush(zlib.Z_FULL_FLUSH)
block = c.compress(bytes(1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
data = b"wpcounts" + (1).to_bytes(4, "little") + head + block * 2048
# The address space this process has now, plus 512 MiB: inflating the body
# whole would need 2 GiB more.
used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + (512 << 20),) * 2)
try:
    wpiece.WordCounts.from_bytes(data)
except ValueError as e:
    print("refused:", e)
"""


def run_limited_child(script: str, timeout: float) -> str:
    """The stdout of ``script``, run in a child that limits its own address
    space; the child must exit cleanly (no abort, no MemoryError)."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_a_small_file_that_inflates_to_gigabytes_is_refused_in_bounded_memory() -> None:
    stdout = run_limited_child(BOMB_CHILD, timeout=120)
    assert "refused:" in stdout and "not a valid word counts file" in stdout


def test_saving_to_a_long_legal_name(tmp_path: Path) -> None:
    path = tmp_path / ("n" * 240 + ".wpc")  # legal; a temp name built from it whole is not
    count_words(["a b"]).save(path)
    assert WordCounts.load(path).items() == [("a", 1), ("b", 1)]
    assert os.listdir(tmp_path) == [path.name]


def test_each_call_adds_all_or_nothing(tmp_path: Path) -> None:
    c = count_words(["kept"])

    def failing() -> Iterator[object]:
        yield from ["doc"] * 10_000  # more than one buffer goes to the core first
        yield 5

    with pytest.raises(TypeError, match="item 10000"):
        c.add_texts(failing())  # type: ignore[arg-type]
    (tmp_path / "a.txt").write_text("from a file\n", encoding="utf-8")
    with pytest.raises(FileNotFoundError):
        c.add_files([tmp_path / "a.txt", tmp_path / "missing.txt"])
    (tmp_path / "b.txt").write_bytes(b"valid\n\xff\n")
    with pytest.raises(ValueError, match="UTF-8"):
        c.add_files([tmp_path / "a.txt", tmp_path / "b.txt"])
    assert c.items() == [("kept", 1)]


@pytest.mark.parametrize(
    "options, word",
    [
        ({}, "Hello"),  # lowercased counts cannot hold a capital
        ({}, "a b"),
        ({}, ""),
        ({}, "日本"),  # each ideograph is a word of its own
        ({"lowercase": False}, "é"),  # accents stripped by default... when lowercasing
        ({"lowercase": False, "strip_accents": True}, "é"),
        ({"pre_tokenizer": "bert"}, "a,"),
    ],
)
def test_forged_counts_files_are_refused_naming_the_word(
    tmp_path: Path, options: dict[str, object], word: str
) -> None:
    counts = WordCounts(**options)  # type: ignore[arg-type]
    counts._core.add_counts([("the", 2), (word, 3)])  # as a forger would write them
    path = tmp_path / "forged.wpc"
    counts.save(path)
    if word == "é" and options == {"lowercase": False}:
        # strip_accents follows lowercase: "é" is a word cased counting makes.
        assert WordCounts.load(path)["é"] == 3
        return
    with pytest.raises(ValueError, match=f"word 1 \\({json.dumps(word, ensure_ascii=False)}\\)"):
        WordCounts.load(path)
    with pytest.raises(ValueError, match="is not a word that counting"):
        WordCounts.from_bytes(counts.to_bytes())
    assert not [p for p in tmp_path.iterdir() if p.name != "forged.wpc"]


def test_words_counted_zero_are_dropped_on_load(tmp_path: Path) -> None:
    counts = WordCounts()
    counts._core.add_counts([("the", 0), ("cat", 2), ("sat", 0)])
    back = WordCounts.from_bytes(counts.to_bytes())
    assert back.items() == [("cat", 2)]


def test_one_object_is_safe_to_share_across_threads() -> None:
    import threading

    shared, part = WordCounts(), count_words(LINES[:200])
    docs = LINES[:300]
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(10):
                shared.update(part)
                shared.add_texts(docs)
                shared.most_common(3)
                assert len(shared) > 0 and shared.total() > 0
                shared.items()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    # Every call counted once: 40 merges of `part` and 40 counts of `docs`.
    once = count_words(docs)
    assert shared["the"] == 40 * part["the"] + 40 * once["the"]
    # Merging two objects into each other from two threads cannot deadlock.
    a, b = count_words(["x y"]), count_words(["y z"])
    ab = threading.Thread(target=lambda: [a.update(b) for _ in range(20)])
    ba = threading.Thread(target=lambda: [b.update(a) for _ in range(20)])
    ab.start(), ba.start()
    ab.join(timeout=60), ba.join(timeout=60)
    assert not ab.is_alive() and not ba.is_alive()


CLAIMING_CHILD = """
import gzip, resource, sys
import wpiece
from wpiece._distributed import from_worker


def varint(data, at):
    value, shift = 0, 0
    while True:
        value |= (data[at] & 0x7F) << shift
        at += 1
        if data[at - 1] < 0x80:
            return value, at
        shift += 7


def leb128(value):
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes(out + bytes([value]))


# Real counts (200,000 words, 3 MB), whose body then claims 2^60 words.
counts = wpiece.WordCounts(normalize=False, pre_tokenizer="whitespace")
counts.add_texts(f"w{k:09d}" for k in range(200_000))
assert len(counts) == 200_000
data = counts._core.to_bytes(False)
body = gzip.decompress(data[12:])
options_len, at = varint(body, 0)
_, after = varint(body, at + options_len)
forged = data[:12] + gzip.compress(
    body[: at + options_len] + leb128(1 << 60) + body[after:], compresslevel=0
)
used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + (256 << 20),) * 2)
for load in (wpiece.WordCounts.from_bytes, from_worker):
    try:
        load(forged)
    except ValueError as e:
        print("refused:", e)
"""


def test_a_file_claiming_2_to_the_60_words_is_refused_as_cut_short() -> None:
    # Both readers: a saved file's and a cluster worker's (which reserves
    # room for the words it says it holds, at most 2^20 and only if memory
    # allows), with 256 MiB of address space to spare: a ValueError, not a
    # MemoryError or an abort.
    stdout = run_limited_child(CLAIMING_CHILD, timeout=300)
    refused = [line for line in stdout.splitlines() if line.startswith("refused:")]
    assert len(refused) == 2, stdout
    assert all("cut short" in line for line in refused), refused


def large_hostile_file(path: Path) -> bytes:
    """About 7 MB of lines, so that counting on two threads or more cuts the
    file into pieces (1 MiB and up): real lines, CRLF and blank lines, a
    1.5 MiB line that several cuts fall in, multi-byte chars all along (a cut
    lands in a char as often as not), no newline at the end."""
    real = "\n".join(LINES).encode()
    long_line = ("Ünïcode 日本語 " * 60_000).encode()
    parts = [real, b"\r\n\r\n", real.replace(b"\n", b"\r\n"), b"\n", long_line, b"\n\n", real]
    data = b"\n".join(parts * 3) + b"\nlast line without its newline"
    path.write_bytes(data)
    return data


@pytest.mark.parametrize("threads", [2, 3])
def test_a_large_file_counted_in_pieces_counts_as_on_one_thread(
    tmp_path: Path, threads: int
) -> None:
    path = tmp_path / "large.txt"
    data = large_hostile_file(path)
    assert len(data) > 6_000_000
    one = count_words(path, num_threads=1)
    many = count_words(path, num_threads=threads)
    assert many.items() == one.items()  # counts and first-appearance order
    # A plain reference: whitespace splitting, no normalizer, is str.split.
    text = data.decode()
    raw = count_words(path, num_threads=threads, normalize=False, pre_tokenizer="whitespace")
    assert raw.items() == list(Counter(text.split()).items())
    # Through a tokenizer's pipeline with added tokens, and by byte ranges.
    tok = wpiece.Tokenizer.from_file(str(VOCAB_TXT))
    tok.add_tokens(["日本", "line without"])
    via = count_words(path, num_threads=threads, tokenizer=tok)
    assert via.items() == count_words(path, num_threads=1, tokenizer=tok).items()
    ranges = wpiece.WordCounts(num_threads=threads)
    cut = len(data) // 3
    for start, end in [(0, cut), (cut, len(data) + 5)]:
        ranges._count(lambda part, r=(start, end): part.add_file(str(path), None, r))
    assert ranges.items() == one.items()


def test_a_large_file_with_bad_utf8_gives_the_first_error_on_any_thread_count(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bad.txt"
    data = bytearray(large_hostile_file(path))
    first = len(data) // 4
    for at in (first, len(data) // 2, len(data) - 40):
        data[at] = 0xFF
    path.write_bytes(bytes(data))
    messages = set()
    for threads in (1, 2, 3, 2, 2):
        with pytest.raises(ValueError, match="invalid UTF-8") as e:
            count_words(path, num_threads=threads)
        messages.add(str(e.value))
    assert messages == {f"{path}: invalid UTF-8 at byte offset {first}"}


def bytes_read() -> int:
    """Bytes this process has read so far (Linux's /proc/self/io rchar)."""
    io = Path("/proc/self/io").read_text()
    return int(next(line for line in io.splitlines() if line.startswith("rchar:")).split()[1])


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="Linux's /proc/self/io")
def test_a_byte_range_inside_a_long_line_is_searched_once(tmp_path: Path) -> None:
    # The range holds no line start: finding that takes reading from each
    # of its ends to the line's end (30 MB and 25 MB). Counting on two
    # threads searched again when it fell back to reading in turn.
    path = tmp_path / "long.txt"
    path.write_bytes(b"x" * 30_000_000 + b"\nsecond line\n")
    counts = wpiece.WordCounts(num_threads=2)
    before = bytes_read()
    counts._count(lambda part: part.add_file(str(path), None, (10, 5 << 20)))
    read = bytes_read() - before
    assert len(counts) == 0
    assert read < 65_000_000, read
