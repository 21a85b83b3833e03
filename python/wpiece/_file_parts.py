"""Files cut into parts for the workers of a cluster: plain files by byte
ranges (each part holds the lines that start in its range, so the parts hold
every line once), ``.gz`` files whole. Planned on the driver from the file
sizes alone; every worker reads its own part with the core's reader."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Optional

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
    """A file, or the lines starting in a byte range of a plain file."""

    path: str
    byte_range: Optional[tuple[int, int]]


def plan_parts(files: Files, workers: int, part_bytes: Optional[int] = None) -> list[FilePart]:
    """The parts of ``files`` (paths or globs), in order: about ``workers``
    parts' worth of bytes each, or ``part_bytes`` each if given.

    >>> import wpiece
    >>> parts = plan_parts(str(wpiece.sample_text_path()), 1, part_bytes=10_000)
    >>> len(parts), parts[0].byte_range, parts[1].byte_range
    (5, (0, 10000), (10000, 20000))
    """
    paths = resolve_files(files)
    if part_bytes is not None:
        if isinstance(part_bytes, bool) or not isinstance(part_bytes, int):
            raise TypeError(f"part_bytes must be an int, got {type(part_bytes).__name__}")
        if part_bytes < 1:
            raise ValueError(f"part_bytes must be at least 1, got {part_bytes}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    sizes = [os.path.getsize(p) for p in paths]
    if part_bytes is None:
        plain = sum(s for p, s in zip(paths, sizes) if p.suffix != ".gz")
        part_bytes = min(MAX_PART_BYTES, max(MIN_PART_BYTES, math.ceil(plain / workers)))
    parts: list[FilePart] = []
    for path, size in zip(paths, sizes):
        if path.suffix == ".gz" or size <= part_bytes:
            parts.append(FilePart(str(path), None))
            continue
        parts.extend(
            FilePart(str(path), (start, min(start + part_bytes, size)))
            for start in range(0, size, part_bytes)
        )
    return parts


def check_jsonl_field(jsonl_field: object) -> None:
    _check_str(jsonl_field, "jsonl_field", optional=True)


def read_part(part: FilePart, jsonl_field: Optional[str]) -> Any:
    """The documents of a part as a pyarrow ``LargeStringArray``, read by the
    core (one copy of the text, no Python ``str`` per document)."""
    import pyarrow as pa

    offsets, data = _core.documents_arrow(part.path, jsonl_field, part.byte_range)
    return pa.LargeStringArray.from_buffers(
        len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(data)
    )
