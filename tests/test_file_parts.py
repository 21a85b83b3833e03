"""Files cut into parts for a cluster (no engine): the parts of every file
cover it once, in order; reading every part gives the documents of the
whole file; paths are absolute; a file that changed size since planning is
refused before it is read."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wpiece
from wpiece._distributed import count_file_part, merge_parts
from wpiece._file_parts import FilePart, plan_parts, read_part

from conftest import examples

# Lines an attacker would pick: empty, CR before LF, multi-byte chars (a
# cut may fall inside one), whitespace only, prefix-like words.
LINE = st.text(
    st.sampled_from(list("ab ##\r\t") + ["é", "日", "🙂", "\u00a0", "\u3000"]), max_size=12
)


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
    got = [d for p in parts for d in read_part(p, None).to_pylist()]
    assert got == documents(data) * 2
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
        read_part(parts[-1], None)
    with pytest.raises(ValueError, match="changed while the job ran"):
        count_file_part(parts[0], None, {})
    gone = FilePart(str(tmp_path / "gone.txt"), None, 1)
    with pytest.raises(FileNotFoundError):
        read_part(gone, None)


def test_planning_sizes_parts_by_workers_and_refuses_bad_arguments(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"x\n" * (5 << 20))  # 10 MiB
    assert len(plan_parts(big, 1)) == 1  # one worker: the whole file (under 128 MiB)
    assert len(plan_parts(big, 2)) == 2
    assert len(plan_parts(big, 64)) == 3  # parts of at least 4 MiB
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
