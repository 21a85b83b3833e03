"""The Parquet folder a cluster job writes, without an engine: parts land in
a staging folder, the folder takes the target's place whole, a target that
appears meanwhile is never replaced without overwrite (nor ever if it is not
a folder), a late or cancelled writer leaves nothing in the output."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from wpiece._parquet_output import ParquetFolder, write_part

TABLE = pa.table({"input_ids": pa.array([[2, 5, 3], [2, 3]], pa.list_(pa.int32()))})


def state(target: Path) -> object:
    if target.is_symlink():
        return ("link", os.readlink(target))
    return sorted(os.listdir(target)) if target.is_dir() else target.read_text()


def left_beside(target: Path) -> list[str]:
    return sorted(n for n in os.listdir(target.parent) if n != target.name)


def test_a_committed_folder_holds_the_parts_and_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "ids"
    folder = ParquetFolder(target, overwrite=False)
    assert not target.exists()
    assert write_part(folder.destination, 0, TABLE) == 2
    assert write_part(folder.destination, 1, TABLE) == 2
    (folder.staging / ".part-00007.parquet.deadbeef.tmp").write_bytes(b"a killed attempt")
    folder.commit(range(2))
    assert sorted(os.listdir(target)) == ["_SUCCESS", "part-00000.parquet", "part-00001.parquet"]
    assert pq.read_table(target).column("input_ids").to_pylist() == [[2, 5, 3], [2, 3]] * 2
    assert left_beside(target) == []


def test_a_missing_part_is_an_error_and_abort_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "ids"
    folder = ParquetFolder(target, overwrite=False)
    write_part(folder.destination, 0, TABLE)
    with pytest.raises(RuntimeError, match="part-00001"):
        folder.commit(range(2))
    folder.abort()
    assert os.listdir(tmp_path) == []
    # A task still running after the abort finds no folder to write into.
    with pytest.raises(FileNotFoundError, match="staging folder"):
        write_part(folder.destination, 1, TABLE)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("appears", ["folder", "empty folder", "file", "symlink"])
def test_a_target_that_appears_while_the_job_runs_is_not_replaced(
    tmp_path: Path, appears: str
) -> None:
    target = tmp_path / "ids"
    folder = ParquetFolder(target, overwrite=False)
    write_part(folder.destination, 0, TABLE)
    if appears == "folder":
        target.mkdir()
        (target / "theirs.txt").write_text("another job's output")
    elif appears == "empty folder":
        target.mkdir()
    elif appears == "file":
        target.write_text("a user's file")
    else:
        target.symlink_to(tmp_path)
    before = state(target)
    with pytest.raises(FileExistsError):
        folder.commit(range(1))
    folder.abort()
    assert state(target) == before
    assert left_beside(target) == []


@pytest.mark.parametrize("appears", ["file", "symlink"])
def test_overwrite_replaces_a_folder_only(tmp_path: Path, appears: str) -> None:
    target = tmp_path / "ids"
    folder = ParquetFolder(target, overwrite=True)
    write_part(folder.destination, 0, TABLE)
    if appears == "file":
        target.write_text("a user's file")
    else:
        (tmp_path / "elsewhere").mkdir()
        target.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(FileExistsError, match="not a folder"):
        folder.commit(range(1))
    folder.abort()
    assert target.is_symlink() or target.read_text() == "a user's file"


def test_overwrite_swaps_the_old_folder_for_the_new_whole(tmp_path: Path) -> None:
    target = tmp_path / "ids"
    target.mkdir()
    for k in range(3):
        (target / f"part-{k:05d}.parquet").write_bytes(b"old")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        ParquetFolder(target, overwrite=False)
    folder = ParquetFolder(target, overwrite=True)
    write_part(folder.destination, 0, TABLE)
    assert (target / "part-00000.parquet").read_bytes() == b"old"  # untouched until commit
    folder.commit([0])
    assert sorted(os.listdir(target)) == ["_SUCCESS", "part-00000.parquet"]
    assert pq.read_table(target).num_rows == 2
    assert left_beside(target) == []
    # A duplicate attempt finishing after the commit leaves nothing anywhere.
    with pytest.raises(FileNotFoundError):
        write_part(folder.destination, 0, TABLE)
    assert sorted(os.listdir(target)) == ["_SUCCESS", "part-00000.parquet"]
    assert left_beside(target) == []


def test_bad_targets_are_refused_before_anything_is_made(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(FileExistsError, match="not a folder"):
        ParquetFolder(tmp_path / "file", overwrite=True)
    with pytest.raises(FileNotFoundError, match="no folder"):
        ParquetFolder(tmp_path / "missing" / "ids", overwrite=False)
    with pytest.raises(TypeError, match="path"):
        ParquetFolder(3, overwrite=False)
    with pytest.raises(TypeError, match="overwrite"):
        ParquetFolder(tmp_path / "ids", overwrite="yes")
    with pytest.raises(ValueError, match="compression must be one of lz4, zstd"):
        ParquetFolder(tmp_path / "ids", overwrite=False, compression="LZ4")
    with pytest.raises(TypeError, match="compression"):
        ParquetFolder(tmp_path / "ids", overwrite=False, compression=None)  # type: ignore[arg-type]
    assert os.listdir(tmp_path) == ["file"]


# Every column a part's encoder makes, with null and empty rows, beside a
# column of the caller's (a DataFrame's) that is a list of integers too.
ENCODED = pa.table(
    {
        "score": pa.array([[7, 8], None, []], pa.list_(pa.int64())),
        "input_ids": pa.array([[101, 30521, 102], None, []], pa.list_(pa.int32())),
        "attention_mask": pa.array([[1, 1, 1], None, []], pa.list_(pa.int8())),
        "offsets": pa.array(
            [[[0, 0], [0, 4], [0, 0]], None, []], pa.list_(pa.list_(pa.int32(), 2))
        ),
    }
)


def encodings(part: Path) -> dict[str, str]:
    """Each column's value encoding (the one besides the levels' RLE)."""
    meta = pq.ParquetFile(part).metadata.row_group(0)
    found = {}
    for i in range(meta.num_columns):
        column = meta.column(i)
        values = [e for e in column.encodings if e != "RLE"]
        assert len(values) == 1, column.encodings
        found[column.path_in_schema.split(".")[0]] = values[0]
    return found


@pytest.mark.parametrize(
    ("compression", "codec", "packed"),
    [
        ("lz4", "LZ4", True),
        ("zstd", "ZSTD", False),
        ("snappy", "SNAPPY", True),
        ("gzip", "GZIP", False),
        ("brotli", "BROTLI", False),
        ("none", "UNCOMPRESSED", True),
    ],
)
def test_parts_are_written_with_the_codec_asked(
    tmp_path: Path, compression: str, codec: str, packed: bool
) -> None:
    """The encoder's integer columns are bit-packed (DELTA_BINARY_PACKED)
    without a codec or with a fast one, plain for the entropy coders; the
    caller's columns always as pyarrow writes them."""
    target = tmp_path / "ids"
    folder = ParquetFolder(target, overwrite=False, compression=compression)
    write_part(folder.destination, 0, ENCODED)
    folder.commit([0])
    part = target / "part-00000.parquet"
    meta = pq.ParquetFile(part).metadata.row_group(0)
    assert {meta.column(i).compression for i in range(meta.num_columns)} == {codec}
    ours = "DELTA_BINARY_PACKED" if packed else "PLAIN"
    assert encodings(part) == {
        "score": "PLAIN",
        "input_ids": ours,
        "attention_mask": ours,
        "offsets": ours,
    }
    assert pq.read_table(part).equals(ENCODED)


def test_parts_are_packed_without_a_codec_by_default(tmp_path: Path) -> None:
    folder = ParquetFolder(tmp_path / "ids", overwrite=False)
    write_part(folder.destination, 0, ENCODED)
    folder.commit([0])
    part = tmp_path / "ids" / "part-00000.parquet"
    assert pq.ParquetFile(part).metadata.row_group(0).column(1).compression == "UNCOMPRESSED"
    assert encodings(part)["input_ids"] == "DELTA_BINARY_PACKED"


def test_ids_and_offsets_become_int32_by_reading_the_same_buffers() -> None:
    """Parquet columns are int32 (Spark and Ray have no uint32): values
    below 2^31 are read in place; sliced, chunked, empty
    and null rows keep what they hold; a value of 2^31 is refused."""
    from wpiece._distributed import as_int32

    ids_type, pairs_type = pa.list_(pa.int32()), pa.list_(pa.list_(pa.int32(), 2))
    ids = pa.ListArray.from_arrays(
        pa.array([0, 2, 2, 3, 4], pa.int32()),
        pa.array([2**31 - 1, 0, 7, 2**31], pa.uint32()),
        mask=pa.array([False, True, False, False]),
    )
    head = ids.slice(0, 3)  # 2^31 lies past the slice
    got = as_int32(head)
    assert got.type == ids_type and got.to_pylist() == [[2**31 - 1, 0], None, [7]]
    assert got.values.buffers()[1].address == head.values.buffers()[1].address
    with pytest.raises(pa.ArrowInvalid, match="2147483648"):
        as_int32(ids)
    chunked = as_int32(pa.chunked_array([head, head.slice(2)]))
    assert chunked.type == ids_type and chunked.to_pylist() == [[2**31 - 1, 0], None, [7], [7]]
    empty = pa.ListArray.from_arrays(pa.array([0, 0], pa.int32()), pa.array([], pa.uint32()))
    assert as_int32(empty).to_pylist() == [[]]
    pairs = pa.FixedSizeListArray.from_arrays(pa.array([0, 3, 4, 2**31], pa.uint32()), 2)
    offsets = pa.ListArray.from_arrays(pa.array([0, 1, 2], pa.int32()), pairs)
    got = as_int32(offsets.slice(0, 1))
    assert got.type == pairs_type and got.to_pylist() == [[[0, 3]]]
    with pytest.raises(pa.ArrowInvalid, match="2147483648"):
        as_int32(offsets)


def test_large_lists_become_large_int32_lists_and_parquet_parts(tmp_path: Path) -> None:
    """A part of 2^31 tokens or more comes from the encoder as large lists
    (64-bit row bounds): the int32 view keeps them large, reads the same
    buffers, refuses 2^31, and the part is written and read back as such
    (every ids leaf delta-encoded)."""
    from wpiece._distributed import as_int32

    ids = pa.LargeListArray.from_arrays(
        pa.array([0, 2, 2, 3, 4], pa.int64()),
        pa.array([5, 0, 7, 2**31], pa.uint32()),
        mask=pa.array([False, True, False, False]),
    )
    head = ids.slice(0, 3)
    got = as_int32(head)
    assert got.type == pa.large_list(pa.int32())
    assert got.to_pylist() == [[5, 0], None, [7]]
    assert got.values.buffers()[1].address == head.values.buffers()[1].address
    with pytest.raises(pa.ArrowInvalid, match="2147483648"):
        as_int32(ids)
    chunked = as_int32(pa.chunked_array([head, head.slice(1)]))
    assert chunked.type == pa.large_list(pa.int32())
    assert chunked.to_pylist() == [[5, 0], None, [7], None, [7]]
    pairs = pa.FixedSizeListArray.from_arrays(pa.array([0, 3, 4, 9, 9, 12], pa.uint32()), 2)
    offsets = as_int32(pa.LargeListArray.from_arrays(pa.array([0, 2, 2, 3], pa.int64()), pairs))
    assert offsets.type == pa.large_list(pa.list_(pa.int32(), 2))
    table = pa.table({"input_ids": got, "offsets": offsets})
    folder = ParquetFolder(tmp_path / "ids", overwrite=False)
    assert write_part(folder.destination, 0, table) == 3
    folder.commit([0])
    part = tmp_path / "ids" / "part-00000.parquet"
    back = pq.read_table(part)
    assert back.column("input_ids").to_pylist() == [[5, 0], None, [7]]
    assert back.column("offsets").to_pylist() == [[[0, 3], [4, 9]], [], [[9, 12]]]
    assert pa.types.is_large_list(back.schema.field("input_ids").type)
    assert encodings(part) == {
        "input_ids": "DELTA_BINARY_PACKED",
        "offsets": "DELTA_BINARY_PACKED",
    }


def test_encoding_tasks_run_on_the_cores_their_task_was_given(monkeypatch: Any) -> None:
    """Each encoding helper a Spark or Ray task runs passes the task's cores
    to the encoder (not the machine's: cores x tasks threads otherwise);
    outside any engine's task, one."""
    import wpiece._distributed as distributed
    from wpiece import Tokenizer

    assert distributed.task_threads() == 1
    asked: list[object] = []
    encode_arrow = Tokenizer.encode_arrow

    def recording(self: Tokenizer, *args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs.get("num_threads"))
        return encode_arrow(self, *args, **kwargs)

    monkeypatch.setattr(Tokenizer, "encode_arrow", recording)
    monkeypatch.setattr(distributed, "task_threads", lambda: 3)
    tok = Tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"])
    texts = pa.array(["a a", None])
    assert distributed.encode_column(tok, texts, True).to_pylist() == [[2, 4, 4, 3], None]
    columns = distributed.encoded_columns(tok, texts, False, True, True)
    assert columns["input_ids"].to_pylist() == [[4, 4], None]
    # A null row has null offsets too (they were an empty list).
    assert columns["offsets"].to_pylist() == [[[0, 1], [2, 3]], None]
    assert asked == [3, 3]


def test_row_groups_hold_about_the_same_number_of_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts are cut into row groups of about ``ROW_GROUP_IDS`` ids (rows at
    their mean length), not one group a part; a sliced, chunked table with
    null and empty rows reads back equal."""
    import wpiece._parquet_output as parquet_output

    monkeypatch.setattr(parquet_output, "ROW_GROUP_IDS", 100)
    rows = [[k % 7] * (k % 13) if k % 5 else None for k in range(400)]
    ids = pa.array(rows, pa.list_(pa.int32()))
    table = pa.table({"input_ids": pa.chunked_array([ids.slice(3, 200), ids.slice(203)])})
    folder = ParquetFolder(tmp_path / "ids", overwrite=False)
    write_part(folder.destination, 0, table)
    # A table without ids (nothing to size groups by) is one group.
    write_part(folder.destination, 1, pa.table({"x": [1, 2]}))
    folder.commit([0, 1])
    assert pq.ParquetFile(tmp_path / "ids" / "part-00001.parquet").metadata.num_row_groups == 1
    part = pq.ParquetFile(tmp_path / "ids" / "part-00000.parquet")
    total = sum(len(r) for r in rows[3:] if r)
    per_row = len(rows[3:]) * 100 // total  # rows at the mean length
    groups = [part.metadata.row_group(g).num_rows for g in range(part.metadata.num_row_groups)]
    assert groups[:-1] == [per_row] * (len(groups) - 1) and 0 < groups[-1] <= per_row
    assert len(groups) >= 10
    assert part.read().equals(pa.table({"input_ids": ids.slice(3)}))


def test_an_empty_part_has_no_row_group_and_hf_datasets_loads_the_folder(tmp_path: Path) -> None:
    """An empty part (an empty file, a range without a line, an empty
    frame) is written with its columns and no row group: HF datasets takes
    its batch size from a folder's first row group and refuses one of 0
    rows, which pyarrow writes for an empty table."""
    datasets = pytest.importorskip("datasets")
    folder = ParquetFolder(tmp_path / "ids", overwrite=False)
    write_part(folder.destination, 0, ENCODED.slice(0, 0))
    write_part(folder.destination, 1, ENCODED)
    folder.commit([0, 1])
    empty = pq.ParquetFile(tmp_path / "ids" / "part-00000.parquet")
    assert empty.metadata.num_row_groups == 0
    assert empty.read().equals(ENCODED.slice(0, 0))
    loaded = datasets.load_dataset(
        "parquet",
        data_files=str(tmp_path / "ids" / "part-*.parquet"),
        split="train",
        cache_dir=str(tmp_path / "hf"),
    )
    assert loaded.to_dict() == ENCODED.to_pydict()


def test_columns_the_output_adds_are_refused_in_any_case_or_as_a_path() -> None:
    """A frame's column named like one the output adds is refused: the same
    name, one differing in case (Spark reading the parts takes them for the
    same), or a dotted name that is the Parquet path of their values (the
    writer would pack that column as ours)."""
    import re

    from wpiece._distributed import check_free_columns

    check_free_columns(["text", "ids", "input", "offsets_x", "mask.input_ids"], "DataFrame")
    for name in ["input_ids", "Input_Ids", "OFFSETS", "input_ids.list.element", "attention_mask.x"]:
        with pytest.raises(ValueError, match=re.escape(f"already has a column {name!r}")):
            check_free_columns(["text", name], "DataFrame")
