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
from typing import Optional, Union

from ._args import _check_str
from .documents import Files, require_field, resolve_files

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
    jsonl_field: Optional[str] = None,
) -> list[FilePart]:
    """The parts of ``files`` (paths or globs), in order: ``part_bytes``
    each if given, else cut so that the parts keep ``workers`` (called for
    only once the arguments are checked, so an engine is asked only then)
    evenly busy (see :func:`cut_files`). A JSON Lines file without
    ``jsonl_field`` is refused here, on the driver, before any task starts.

    >>> import wpiece
    >>> parts = plan_parts(str(wpiece.sample_text_path()), 1, part_bytes=10_000)
    >>> len(parts), parts[0].byte_range, parts[1].byte_range, parts[0].path == parts[1].path
    (5, (0, 10000), (10000, 20000), True)
    """
    check_part_bytes(part_bytes)
    # Absolute: each worker resolves a relative path against its own folder.
    paths = [p.absolute() for p in resolve_files(files)]
    require_field(paths, jsonl_field)
    if callable(workers):
        workers = workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    sizes = [os.path.getsize(p) for p in paths]
    whole = [p.suffix.lower() == ".gz" for p in paths]  # as the core's reader
    if part_bytes is None:
        cuts = cut_files(sizes, whole, workers)
    else:
        cuts = [by_part_bytes(s, w, part_bytes) for s, w in zip(sizes, whole)]
    parts: list[FilePart] = []
    for path, size, at in zip(paths, sizes, cuts):
        if len(at) == 2:
            parts.append(FilePart(str(path), None, size))
        else:
            parts.extend(FilePart(str(path), (a, b), size) for a, b in zip(at, at[1:]))
    return parts


# A .gz part is read whole and inflated: about this many times its size in
# text (English prose compresses about 3-4x).
GZ_WEIGHT = 3


def by_part_bytes(size: int, whole: bool, part_bytes: int) -> list[int]:
    """Where a file's parts start and end: ``part_bytes`` each, the last one
    shorter (``[0, size]``: one part, the whole file)."""
    if whole or size <= part_bytes:
        return [0, size]
    return [*range(0, size, part_bytes), size]


def equal_pieces(size: int, whole: bool, piece_bytes: int) -> list[int]:
    """Where a file's parts start and end: equal pieces of at most about
    ``piece_bytes``."""
    n = 1 if whole else max(1, math.ceil(size / piece_bytes))
    return [size * k // n for k in range(n + 1)]


def finish_time(cuts: list[list[int]], whole: list[bool], workers: int) -> float:
    """When the last of ``workers`` is done if each takes the next part (in
    order) when it is free, as Spark and Ray hand out tasks; a part costs
    its bytes (a ``.gz`` one ``GZ_WEIGHT`` times)."""
    loads = [0.0] * workers
    for at, w in zip(cuts, whole):
        for a, b in zip(at, at[1:]):
            heapq.heapreplace(loads, loads[0] + (b - a) * (GZ_WEIGHT if w else 1))
    return max(loads)


def cut_files(sizes: list[int], whole: list[bool], workers: int) -> list[list[int]]:
    """Where each file's parts start and end, so that ``workers`` all finish
    at about the same time without more parts than that needs (each part's
    counts cost a merge, each part a task). The plain bytes over the workers
    (at least ``MIN_PART_BYTES``, at most ``MAX_PART_BYTES``, the last part of
    a file shorter) come first; equal pieces of that size, then of a half, a
    third... of it replace it only when the last worker finishes a twentieth
    sooner, until it finishes within a tenth of the even share or pieces
    reach the minimum. Three equal files on two workers: a part per file
    left one worker idle half the time; two equal pieces of each do not.

    >>> mib = 1 << 20
    >>> [len(at) - 1 for at in cut_files([100 * mib] * 3, [False] * 3, 2)]
    [2, 2, 2]
    >>> cut_files([300 * mib], [False], 2) == [[0, 75 * mib, 150 * mib, 225 * mib, 300 * mib]]
    True
    """
    plain = sum(s for s, w in zip(sizes, whole) if not w)
    weights = [s * (GZ_WEIGHT if w else 1) for s, w in zip(sizes, whole)]
    even = max(sum(weights) / workers, max((x for x, w in zip(weights, whole) if w), default=0))

    def clamp(n: float) -> int:
        return max(MIN_PART_BYTES, min(MAX_PART_BYTES, math.ceil(n)))

    share = clamp(plain / workers)
    best = [by_part_bytes(s, w, share) for s, w in zip(sizes, whole)]
    best_finish = finish_time(best, whole, workers)
    for k in range(1, 9):
        if best_finish <= 1.1 * even:
            break
        piece_bytes = clamp(plain / (workers * k))
        candidate = [equal_pieces(s, w, piece_bytes) for s, w in zip(sizes, whole)]
        finish = finish_time(candidate, whole, workers)
        if finish < 0.95 * best_finish:
            best, best_finish = candidate, finish
        if piece_bytes == MIN_PART_BYTES:
            break
    return best


def check_jsonl_field(jsonl_field: object) -> None:
    _check_str(jsonl_field, "jsonl_field", optional=True)
