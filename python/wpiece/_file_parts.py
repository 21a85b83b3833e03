"""Files cut into parts for the workers of a cluster: plain files by byte
ranges (each part holds the lines that start in its range, so the parts hold
every line once), ``.gz`` files whole. Planned on the driver from the file
sizes alone; every worker reads its own part with the core's reader."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional, Union

from . import _core
from ._args import _check_str
from .documents import Files, resolve_files

# Parts are at most this large (Spark's default for files, 128 MiB) and,
# when the files allow, at least this (smaller parts cost more in start-up
# than they save in balance).
MAX_PART_BYTES = 128 << 20
MIN_PART_BYTES = 4 << 20


@dataclass(frozen=True)
class FilePart:
    """A file, or the lines starting in a byte range of a plain file, and
    the file's size when the parts were planned."""

    path: str
    byte_range: Optional[tuple[int, int]]
    size: int

    def check_unchanged(self) -> None:
        """A file that changed size since the parts were planned would lose
        lines or count some twice: refused (run on the worker, before
        reading)."""
        now = os.path.getsize(self.path)
        if now != self.size:
            raise ValueError(
                f"{self.path} changed while the job ran ({self.size} bytes when its parts "
                f"were planned, {now} now)"
            )


def check_part_bytes(part_bytes: object) -> None:
    if part_bytes is None:
        return
    if isinstance(part_bytes, bool) or not isinstance(part_bytes, int):
        raise TypeError(f"part_bytes must be an int, got {type(part_bytes).__name__}")
    if part_bytes < 1:
        raise ValueError(f"part_bytes must be at least 1, got {part_bytes}")


def plan_parts(
    files: Files,
    workers: Union[int, Callable[[], int]],
    part_bytes: Optional[int] = None,
) -> list[FilePart]:
    """The parts of ``files`` (paths or globs), in order: the plain files'
    bytes over ``workers`` each (called for it only once the arguments are
    checked, so an engine is asked only then), or ``part_bytes`` each.

    >>> import wpiece
    >>> parts = plan_parts(str(wpiece.sample_text_path()), 1, part_bytes=10_000)
    >>> len(parts), parts[0].byte_range, parts[1].byte_range, parts[0].path == parts[1].path
    (5, (0, 10000), (10000, 20000), True)
    """
    check_part_bytes(part_bytes)
    # Absolute: each worker resolves a relative path against its own folder.
    paths = [p.absolute() for p in resolve_files(files)]
    if callable(workers):
        workers = workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    sizes = [os.path.getsize(p) for p in paths]
    if part_bytes is None:
        plain = sum(s for p, s in zip(paths, sizes) if p.suffix != ".gz")
        part_bytes = min(MAX_PART_BYTES, max(MIN_PART_BYTES, math.ceil(plain / workers)))
    parts: list[FilePart] = []
    for path, size in zip(paths, sizes):
        if path.suffix == ".gz" or size <= part_bytes:
            parts.append(FilePart(str(path), None, size))
            continue
        parts.extend(
            FilePart(str(path), (start, min(start + part_bytes, size)), size)
            for start in range(0, size, part_bytes)
        )
    return parts


def check_jsonl_field(jsonl_field: object) -> None:
    _check_str(jsonl_field, "jsonl_field", optional=True)


def read_part(part: FilePart, jsonl_field: Optional[str]) -> Any:
    """The documents of a part as a pyarrow ``LargeStringArray``, read by the
    core (one copy of the text, no Python ``str`` per document)."""
    import pyarrow as pa

    part.check_unchanged()
    offsets, data = _core.documents_arrow(part.path, jsonl_field, part.byte_range)
    return pa.LargeStringArray.from_buffers(
        len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(data)
    )
