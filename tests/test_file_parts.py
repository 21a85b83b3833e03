"""Files cut into parts for a cluster (no engine): the parts of every file
cover it once, in order; encoding every part as it is read gives the
documents of the whole file, encoded; paths are absolute; a file that
changed size since planning is refused before it is read."""

from __future__ import annotations

import doctest
import gzip
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wpiece
from wpiece._distributed import count_file_part, encode_file_part_table, merge_parts, ship
from wpiece._file_parts import FilePart, plan_parts

from conftest import examples

# Lines an attacker would pick: empty, CR before LF, multi-byte chars (a
# cut may fall inside one), whitespace only, prefix-like words.
LINE = st.text(
    st.sampled_from(list("ab ##\r\t") + ["é", "日", "🙂", "\u00a0", "\u3000"]), max_size=12
)


# Every character LINE draws is a token (accents stripped, as BERT's
# normalizer does): each document's ids and offsets show its text.
TOK = wpiece.Tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *"ab#e日🙂", "##a", "##b", "###"])


def encoded(parts: list[FilePart]) -> list[tuple[list[int], list[list[int]]]]:
    """Each document's ids and char offsets, part after part, as a cluster
    task encodes a part (read and encoded by the core in one call)."""
    payload = ship(TOK, unpadded=True)
    rows = []
    for part in parts:
        table = encode_file_part_table(payload, part, None, True, True, True)
        ids, offsets = table.column("input_ids"), table.column("offsets")
        rows += list(zip(ids.to_pylist(), offsets.to_pylist()))
    return rows


def encoded_documents(docs: list[str]) -> list[tuple[list[int], list[list[int]]]]:
    return [(e.ids, [list(o) for o in e.offsets]) for e in TOK.encode_batch(docs)]


def documents(data: bytes) -> list[str]:
    """Lines as the core reads them, in plain Python: a "\\r" before a
    newline is dropped (not one that ends the file), nothing after a last
    newline."""
    lines = data.decode("utf-8").split("\n")
    ended = [t[:-1] if t.endswith("\r") else t for t in lines[:-1]]
    return ended + ([lines[-1]] if lines[-1] else [])


@settings(max_examples=examples(150), deadline=None)
@given(
    lines=st.lists(LINE, max_size=30),
    last_newline=st.booleans(),
    part_bytes=st.integers(1, 64),
)
def test_the_parts_of_a_file_hold_its_documents_once_in_order(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], last_newline: bool, part_bytes: int
) -> None:
    folder = tmp_path_factory.mktemp("parts")
    data = "\n".join(lines).encode() + (b"\n" if last_newline and lines else b"")
    plain, packed = folder / "a.txt", folder / "b.txt.gz"
    plain.write_bytes(data)
    packed.write_bytes(gzip.compress(data))
    parts = plan_parts([plain, packed], 2, part_bytes)
    ranges = [p.byte_range for p in parts if p.path == str(plain)]
    if len(data) > part_bytes:
        assert [r[0] for r in ranges] == list(range(0, len(data), part_bytes))
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
        assert ranges[-1][1] == len(data)
    assert [p.byte_range for p in parts if p.path == str(packed)] == [None]  # whole
    assert encoded(parts) == encoded_documents(documents(data) * 2)
    counts = merge_parts([count_file_part(p, None, {}) for p in parts])
    assert counts == wpiece.count_words([plain, packed])


def test_parts_name_absolute_paths_and_refuse_a_changed_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.txt").write_text("one line\nanother line\n" * 100)
    monkeypatch.chdir(tmp_path)
    parts = plan_parts("*.txt", 4, part_bytes=500)
    assert len(parts) > 2 and all(Path(p.path).is_absolute() for p in parts)
    assert all(p.size == 2200 for p in parts)
    with open(tmp_path / "a.txt", "a") as f:
        f.write("appended\n")
    with pytest.raises(ValueError, match="changed while the job ran"):
        encoded(parts[-1:])
    with pytest.raises(ValueError, match="changed while the job ran"):
        count_file_part(parts[0], None, {})
    gone = FilePart(str(tmp_path / "gone.txt"), None, 1)
    with pytest.raises(FileNotFoundError):
        encoded([gone])


def test_planning_sizes_parts_by_workers_and_refuses_bad_arguments(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"x\n" * (5 << 20))  # 10 MiB
    assert len(plan_parts(big, 1)) == 1  # one worker: the whole file (under 128 MiB)
    assert len(plan_parts(big, 2)) == 2
    assert len(plan_parts(big, 64)) == 3  # no more than 10 MiB / 4 MiB parts
    for bad, kind in [(0, ValueError), (-1, ValueError), (2.0, TypeError), (True, TypeError)]:
        with pytest.raises(kind, match="part_bytes"):
            plan_parts(big, 2, bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="workers"):
        plan_parts(big, 0)
    with pytest.raises(FileNotFoundError):
        plan_parts(tmp_path / "none*.txt", 2)
    with pytest.raises(IsADirectoryError):
        plan_parts(tmp_path, 2)
    assert os.listdir(tmp_path) == ["big.txt"]


def finish_time(parts: list[tuple[int, int]], workers: int) -> float:
    """When the last of `workers` is done, each taking the next part (in
    order) when it is free: a plain model of how Spark and Ray run tasks;
    a part costs (bytes, weight)."""
    loads = [0.0] * workers
    for size, weight in parts:
        k = loads.index(min(loads))
        loads[k] += size * weight
    return max(loads)


def test_the_default_plan_keeps_every_worker_busy(tmp_path: Path) -> None:
    import wpiece._file_parts as fp

    assert doctest.testmod(fp).failed == 0
    # Three equal files on two workers: a part per file left one worker idle
    # half the time; two equal pieces of each do not.
    files = []
    for k in range(3):
        f = tmp_path / f"{k}.txt"
        with open(f, "wb") as out:
            out.truncate(100 << 20)  # sparse: planning reads sizes only
        files.append(f)
    parts = plan_parts(files, 2)
    assert [p.byte_range for p in parts] == [(0, 50 << 20), (50 << 20, 100 << 20)] * 3
    # A file over twice the largest part on two workers: four equal parts,
    # not 128 + 128 + 44 MiB.
    one = tmp_path / "one.txt"
    with open(one, "wb") as out:
        out.truncate(300 << 20)
    ranges = [p.byte_range for p in plan_parts(one, 2)]
    assert ranges == [(k * (75 << 20), (k + 1) * (75 << 20)) for k in range(4)]
    # Parts of the plain bytes over the workers that already fill them
    # evenly stay as they are (30 + 20 MiB on four workers: 12.5 MiB each,
    # the files' last parts shorter).
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    for f, mib in ((a, 30), (b, 20)):
        with open(f, "wb") as out:
            out.truncate(mib << 20)
    assert [p.byte_range[1] - p.byte_range[0] for p in plan_parts([a, b], 4) if p.byte_range] == [
        int(x * (1 << 20)) for x in (12.5, 12.5, 5, 12.5, 7.5)
    ]


@settings(max_examples=examples(300), deadline=None)
@given(
    files=st.lists(
        st.tuples(
            st.one_of(
                st.integers(0, 10),
                st.integers(0, 1 << 34),
                st.integers(1 << 20, 64 << 20),
                st.just(100 << 20),
            ),
            st.booleans(),
        ),
        min_size=1,
        max_size=12,
    ),
    workers=st.integers(1, 70),
)
def test_the_default_plan_covers_each_file_and_never_finishes_later(
    files: list[tuple[int, bool]], workers: int
) -> None:
    import wpiece._file_parts as fp

    sizes, whole = [s for s, _ in files], [w for _, w in files]
    cuts = fp.cut_files(sizes, whole, workers)
    for at, size, w in zip(cuts, sizes, whole):
        assert at[0] == 0 and at[-1] == size
        assert len(at) == 2 or all(a < b for a, b in zip(at, at[1:]))
        assert not w or len(at) == 2  # a .gz file is one part
        # No part over the largest; none but a file's last under half the
        # smallest.
        lengths = [b - a for a, b in zip(at, at[1:])]
        assert len(at) == 2 or max(lengths) <= fp.MAX_PART_BYTES
        assert all(n >= fp.MIN_PART_BYTES // 2 for n in lengths[:-1])

    def as_parts(cut: list[list[int]]) -> list[tuple[int, int]]:
        return [
            (b - a, fp.GZ_WEIGHT if w else 1)
            for at, w in zip(cut, whole)
            for a, b in zip(at, at[1:])
        ]

    # Planning before: the plain bytes over the workers a part, within 4 MiB
    # to 128 MiB, the last part of each file shorter.
    plain = sum(s for s, w in files if not w)
    share = max(fp.MIN_PART_BYTES, min(fp.MAX_PART_BYTES, -(-plain // workers)))
    before = [[0, s] if w or s <= share else [*range(0, s, share), s] for s, w in files]
    now, then = finish_time(as_parts(cuts), workers), finish_time(as_parts(before), workers)
    assert now <= then + 1e-6
    # More parts only for a last worker done at least a twentieth sooner.
    if sum(map(len, cuts)) > sum(map(len, before)):
        assert now < 0.95 * then


@settings(max_examples=examples(60), deadline=None)
@given(lines=st.lists(LINE, max_size=40), workers=st.integers(1, 5))
def test_default_parts_hold_the_documents_once_in_order(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], workers: int
) -> None:
    import wpiece._file_parts as fp

    folder = tmp_path_factory.mktemp("default_parts")
    data = "\n".join(lines).encode()
    a, b = folder / "a.txt", folder / "b.txt"
    a.write_bytes(data)
    b.write_bytes("\n".join(lines[: len(lines) // 3]).encode())
    # Parts as small as a few bytes, so the test files are cut as big ones are.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fp, "MIN_PART_BYTES", 3)
        parts = plan_parts([a, b], workers)
    for f in (a, b):
        ranges = [p.byte_range or (0, p.size) for p in parts if p.path == str(f)]
        assert ranges[0][0] == 0 and ranges[-1][1] == f.stat().st_size
        assert all(x[1] == y[0] for x, y in zip(ranges, ranges[1:]))
    docs = documents(a.read_bytes()) + documents(b.read_bytes())
    assert encoded(parts) == encoded_documents(docs)
    counts = merge_parts([count_file_part(p, None, {}) for p in parts])
    assert counts == wpiece.count_words([a, b])
