"""Files cut into parts for the workers of a cluster: plain files by byte
ranges (each part holds the lines that start in its range, so the parts hold
every line once), ``.gz`` files whole. Planned on the driver from the file
sizes alone; every worker reads its own part with the core's reader."""

from __future__ import annotations

import heapq
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
    """The parts of ``files`` (paths or globs), in order: ``part_bytes``
    each if given, else each plain file cut into equal pieces so that the
    parts keep ``workers`` (called for only once the arguments are checked,
    so an engine is asked only then) evenly busy (see :func:`pieces_per_file`).

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
    whole = [p.suffix == ".gz" for p in paths]
    if part_bytes is None:
        pieces = pieces_per_file(sizes, whole, workers)
    else:
        pieces = [1 if w else max(1, math.ceil(s / part_bytes)) for s, w in zip(sizes, whole)]
    parts: list[FilePart] = []
    for path, size, n in zip(paths, sizes, pieces):
        if n == 1:
            parts.append(FilePart(str(path), None, size))
        elif part_bytes is not None:
            parts.extend(
                FilePart(str(path), (start, min(start + part_bytes, size)), size)
                for start in range(0, size, part_bytes)
            )
        else:
            cuts = [size * k // n for k in range(n + 1)]
            parts.extend(FilePart(str(path), (a, b), size) for a, b in zip(cuts, cuts[1:]))
    return parts


def pieces_per_file(sizes: list[int], whole: list[bool], workers: int) -> list[int]:
    """How many equal pieces to cut each file into (``whole`` ones, ``.gz``,
    stay one) so that ``workers``, each taking the next part when it is
    free, all finish at about the same time: pieces of the plain bytes over
    ``workers`` first, then halves, thirds... while the last worker would
    finish more than a tenth after the even share (three equal files on two
    workers: one piece each leaves a worker idle half the time, two pieces
    each do not). Every part's counts cost a merge, so no more pieces than
    that, and none under ``MIN_PART_BYTES`` or over ``MAX_PART_BYTES``.

    >>> pieces_per_file([100 << 20] * 3, [False] * 3, 2)
    [2, 2, 2]
    >>> pieces_per_file([100 << 20, 1 << 20], [False, True], 2)
    [2, 1]
    """
    plain = sum(s for s, w in zip(sizes, whole) if not w)
    even = max(sum(sizes) / workers, max((s for s, w in zip(sizes, whole) if w), default=0))

    def plan(piece_bytes: int) -> list[int]:
        return [1 if w else max(1, math.ceil(s / piece_bytes)) for s, w in zip(sizes, whole)]

    def finish(pieces: list[int]) -> float:
        loads = [0.0] * min(workers, sum(pieces))
        for size, n in zip(sizes, pieces):
            for _ in range(n):
                heapq.heapreplace(loads, loads[0] + size / n)
        return max(loads, default=0.0)

    best, best_finish = plan(MAX_PART_BYTES), math.inf
    for share in range(1, 9):
        piece_bytes = max(MIN_PART_BYTES, min(MAX_PART_BYTES, math.ceil(plain / (workers * share))))
        pieces = plan(piece_bytes)
        if finish(pieces) < best_finish:
            best, best_finish = pieces, finish(pieces)
        if best_finish <= 1.1 * even or piece_bytes == MIN_PART_BYTES:
            break
    return best


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
