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
import time
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
WRITE_OPTIONS = {"compression": "lz4", "use_dictionary": False, "write_statistics": False}
# Spark's mark of a complete output folder, for the tools that look for it.
SUCCESS = "_SUCCESS"


def part_name(index: int) -> str:
    return PART_NAME.format(index)


class ParquetFolder:
    """The staging folder of one job's output; see the module."""

    def __init__(self, path: Any, overwrite: bool) -> None:
        _check_bool(overwrite, "overwrite")
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
        target = Path(os.fsdecode(os.fspath(path))).absolute()
        if not target.name:
            raise ValueError(f"not a folder path: {path!r}")
        if target.exists() or target.is_symlink():
            if not target.is_dir() or target.is_symlink():
                raise FileExistsError(f"{target} exists and is not a folder")
            if not overwrite:
                raise FileExistsError(f"{target} exists (pass overwrite=True to replace it)")
        if not target.parent.is_dir():
            raise FileNotFoundError(f"no folder {target.parent} to write {target.name} in")
        self.target, self.overwrite = target, overwrite
        self.staging = target.parent / f".{target.name}.wpiece-{uuid.uuid4().hex}.tmp"
        self.staging.mkdir()

    def commit(self, parts: Iterable[int]) -> None:
        """Puts the staged parts (their indices) in the target's place;
        anything else in the staging folder (a killed task's temporary file)
        is dropped first."""
        expected = {part_name(k) for k in parts}
        present = set(os.listdir(self.staging))
        missing = sorted(expected - present)
        if missing:
            raise RuntimeError(f"the job ended without writing {missing[0]}")
        for name in present - expected:
            _remove(self.staging / name)
        (self.staging / SUCCESS).touch()
        if not self.target.exists():
            try:
                os.rename(self.staging, self.target)
                return
            except OSError as e:
                # The target appeared meanwhile, and is not empty.
                if e.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
                if not self.overwrite:
                    raise FileExistsError(f"{self.target} appeared while the job ran") from e
        if not _exchange(self.staging, self.target):
            # No atomic exchange here: the old folder steps aside first.
            aside = self.staging.with_name(self.staging.name + ".old")
            os.rename(self.target, aside)
            os.rename(self.staging, self.target)
            self.staging = aside
        shutil.rmtree(self.staging, ignore_errors=True)

    def abort(self) -> None:
        """Removes the staging folder and whatever it holds. A cancelled task
        may still be finishing a part for a moment: tried again until the
        folder is gone, for up to two seconds."""
        deadline = time.monotonic() + 2
        while True:
            shutil.rmtree(self.staging, ignore_errors=True)
            if not self.staging.exists() or time.monotonic() > deadline:
                return
            time.sleep(0.05)


def write_part(staging: str, index: int, table: Any) -> int:
    """Writes ``table`` as part ``index`` of a staging folder: to a temporary
    name, then renamed. Returns its rows. Runs on a worker."""
    import pyarrow.parquet as pq

    folder = Path(staging)
    if not folder.is_dir():
        raise FileNotFoundError(f"the job's staging folder {folder} is gone (the job ended)")
    tmp = folder / f".{part_name(index)}.{uuid.uuid4().hex}.tmp"
    try:
        pq.write_table(table, tmp, **WRITE_OPTIONS)
        os.replace(tmp, folder / part_name(index))
    finally:
        if tmp.exists():
            tmp.unlink()
    return int(table.num_rows)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swaps two folders in one step (Linux ``renameat2``); False where the
    system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    path, fd = ctypes.c_char_p, ctypes.c_int
    renameat2.argtypes = [fd, path, fd, path, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))
