"""A folder of Parquet parts written as one whole, by workers on a shared
filesystem. Parts go into a staging folder beside the target, each written
under a temporary name and renamed once complete (a retried or speculative
task only replaces a part by an equal one). When every part is there the
staging folder takes the target's place in one rename (an exchange, on
Linux, when the target exists), so a reader of the target sees the old set
or the new one, never a mix; a failed job removes its staging folder."""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ._args import _check_bool

PART_NAME = "part-{:05d}.parquet"
# How parts are written. Ids are a few tens of thousands of values spread
# evenly: a dictionary page and min/max statistics cost more time than they
# save (measured on 51 MB of English: 0.51 s to write with pyarrow's
# defaults, 0.33 s so, for 32 MB instead of 27).
WRITE_OPTIONS = {"use_dictionary": False, "write_statistics": False}
# The columns a part's encoder makes (lists of integers). With no codec or
# a fast one their values are written DELTA_BINARY_PACKED: bit-packed
# differences take half the bytes of plain ones and pack faster than a
# codec compresses, so a part without a codec is as small as lz4 made plain
# values (benches/bench_parquet_codecs.py). Not BYTE_STREAM_SPLIT, which
# would pack smaller still: Spark 4.0's vectorized reader refuses it for
# integers. The entropy coders (zstd, gzip, brotli) find more in plain
# values than in packed ones, so theirs stay plain.
ENCODED_COLUMNS = ("input_ids", "attention_mask", "offsets")
PACKED_WITH = ("none", "lz4", "snappy")
# Ids per row group, about: a group's encoded pages wait in memory until it
# is written, so a whole part in one group (pyarrow's default, a million
# rows) had a worker's first parts fault in tens of MB afresh (a 50 MB part
# of English took 0.3-0.45 s to write instead of 0.15); groups of this many
# ids reuse the same few MB, and still read in large runs.
ROW_GROUP_IDS = 1 << 20
# The codecs a part may be written with (pyarrow's names). None by default:
# the packed ids are as small as lz4's plain ones were, written fastest.
COMPRESSIONS = ("lz4", "zstd", "snappy", "gzip", "brotli", "none")
DEFAULT_COMPRESSION = "none"
# Spark's mark of a complete output folder, for the tools that look for it.
SUCCESS = "_SUCCESS"


def part_name(index: int) -> str:
    return PART_NAME.format(index)


class ParquetFolder:
    """One job's output folder; see the module. Beside the target it keeps a
    staging folder (the parts, to become the target) and a work folder (the
    parts being written: a late duplicate of a task finishes its file there,
    never inside the output)."""

    def __init__(self, path: Any, overwrite: bool, compression: str = DEFAULT_COMPRESSION) -> None:
        target = self.check(path, overwrite, compression)
        self.target, self.overwrite, self.compression = target, overwrite, compression
        job = f".{target.name}.wpiece-{uuid.uuid4().hex}"
        self.staging = target.parent / f"{job}.tmp"
        self.work = target.parent / f"{job}.work"
        self.staging.mkdir()
        self.work.mkdir()

    @staticmethod
    def check(path: Any, overwrite: object, compression: object = DEFAULT_COMPRESSION) -> Path:
        """The target folder ``path`` names, checked (nothing is made), and
        the codec: a job's arguments are checked before an engine is asked
        anything."""
        _check_bool(overwrite, "overwrite")
        _check_compression(compression)
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
        target = Path(os.fsdecode(os.fspath(path))).absolute()
        if not target.name:
            raise ValueError(f"not a folder path: {path!r}")
        _check_target(target, bool(overwrite))
        if not target.parent.is_dir():
            raise FileNotFoundError(f"no folder {target.parent} to write {target.name} in")
        return target

    def __enter__(self) -> ParquetFolder:
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        """A job that raised (an error, Ctrl-C) leaves nothing: see abort."""
        if kind is not None:
            self.abort()

    @property
    def destination(self) -> tuple[str, str, str]:
        """What a worker needs to write a part: the staging and work folders,
        and the codec."""
        return str(self.staging), str(self.work), self.compression

    def commit(self, parts: Iterable[int]) -> None:
        """Puts the staged parts (their indices) in the target's place."""
        expected = {part_name(k) for k in parts}
        present = set(os.listdir(self.staging))
        missing = sorted(expected - present)
        if missing:
            raise RuntimeError(f"the job ended without writing {missing[0]}")
        for name in present - expected:  # not written by this job's parts
            _remove(self.staging / name)
        (self.staging / SUCCESS).touch()
        _check_target(self.target, self.overwrite)
        if os.path.lexists(self.target):
            # A real folder (checked): exchanged in one step, or stepped aside.
            old = self.staging.with_name(self.staging.name + ".old")
            if _rename(self.staging, self.target, _RENAME_EXCHANGE):
                os.rename(self.staging, old)
            else:
                os.rename(self.target, old)
                os.rename(self.staging, self.target)
            shutil.rmtree(old, ignore_errors=True)
        elif not _rename(self.staging, self.target, _RENAME_NOREPLACE):
            if os.path.lexists(self.target):
                raise FileExistsError(f"{self.target} appeared while the job ran")
            os.rename(self.staging, self.target)
        shutil.rmtree(self.work, ignore_errors=True)

    def abort(self) -> None:
        """Removes the staging and work folders: each is renamed away first
        (one step: a task still writing then finds nothing to write into),
        then deleted. A second Ctrl-C meanwhile does not stop the removal."""
        interrupted = False
        for folder in (self.staging, self.work):
            while True:
                try:
                    _discard(folder)
                    break
                except KeyboardInterrupt:
                    interrupted = True
        if interrupted:
            raise KeyboardInterrupt


def _check_compression(compression: object) -> None:
    if not isinstance(compression, str):
        raise TypeError(f"compression must be a str, got {type(compression).__name__}")
    if compression not in COMPRESSIONS:
        raise ValueError(
            f"compression must be one of {', '.join(COMPRESSIONS)}, not {compression!r}"
        )


def _check_target(target: Path, overwrite: bool) -> None:
    """A target that exists must be a real folder, and may be replaced only
    with ``overwrite``."""
    if not os.path.lexists(target):
        return
    if target.is_symlink() or not target.is_dir():
        raise FileExistsError(f"{target} exists and is not a folder")
    if not overwrite:
        raise FileExistsError(f"{target} exists (pass overwrite=True to replace it)")


def _discard(folder: Path) -> None:
    dead = folder.with_name(folder.name + ".dead")
    try:
        os.rename(folder, dead)
    except FileNotFoundError:
        return
    shutil.rmtree(dead, ignore_errors=True)


def write_part(destination: tuple[str, str, str], index: int, table: Any) -> int:
    """Writes ``table`` as part ``index``: to a temporary file in the work
    folder, then renamed into the staging folder. Returns its rows. Runs on
    a worker."""
    import pyarrow.parquet as pq

    staging, work = Path(destination[0]), Path(destination[1])
    compression = destination[2]
    if not staging.is_dir():
        raise FileNotFoundError(f"the job's staging folder {staging} is gone (the job ended)")
    tmp = work / f"{part_name(index)}.{uuid.uuid4().hex}.tmp"
    try:
        if table.num_rows == 0:
            # No row group at all: pyarrow writes an empty table as one group
            # of no rows, which HF datasets refuses (its batch size is 0).
            pq.ParquetWriter(tmp, table.schema, compression=compression).close()
        else:
            pq.write_table(
                table,
                tmp,
                compression=compression,
                column_encoding=delta_encoded(table.schema) if compression in PACKED_WITH else None,
                row_group_size=row_group_rows(table),
                **WRITE_OPTIONS,
            )
        os.replace(tmp, staging / part_name(index))
    finally:
        tmp.unlink(missing_ok=True)
    return int(table.num_rows)


def row_group_rows(table: Any) -> int:
    """Rows per row group: about ``ROW_GROUP_IDS`` ids each (the table's
    rows at the mean length of its ``input_ids`` rows)."""
    rows = max(1, int(table.num_rows))
    if "input_ids" not in table.column_names:
        return rows
    ids = 0
    for chunk in table.column("input_ids").chunks:
        if len(chunk):
            ids += chunk.offsets[len(chunk)].as_py() - chunk.offsets[0].as_py()
    return max(1, min(rows, rows * ROW_GROUP_IDS // max(1, ids)))


def delta_encoded(schema: Any) -> dict[str, str]:
    """``column_encoding`` for pyarrow's writer: each integer leaf of the
    encoded columns in ``schema``, by its Parquet path (pyarrow ignores a
    path it does not know, so the path must be the one written)."""
    import pyarrow as pa

    encodings = {}
    for field in schema:
        if field.name not in ENCODED_COLUMNS:
            continue
        path, kind = field.name, field.type
        # Lists of every kind are written as Parquet's LIST: `name.list.element`.
        while (
            pa.types.is_list(kind)
            or pa.types.is_large_list(kind)
            or pa.types.is_fixed_size_list(kind)
        ):
            path, kind = path + ".list.element", kind.value_type
        if pa.types.is_integer(kind):
            encodings[path] = "DELTA_BINARY_PACKED"
    return encodings


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _rename(a: Path, b: Path, flag: int) -> bool:
    """``renameat2`` (Linux): with RENAME_NOREPLACE, ``a`` becomes ``b``
    unless ``b`` exists (``FileExistsError``); with RENAME_EXCHANGE, the two
    swap in one step. False where the system has no such call."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    path, fd = ctypes.c_char_p, ctypes.c_int
    renameat2.argtypes = [fd, path, fd, path, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), flag) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    if code == errno.EEXIST:
        raise FileExistsError(code, f"{b} appeared while the job ran", str(b))
    raise OSError(code, os.strerror(code), str(b))
