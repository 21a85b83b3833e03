"""What the Spark and Ray integrations share, all run on workers: counting a
column or a file part, merging counts in order, a tokenizer shipped once and
loaded once per process, encoding to Arrow columns for Parquet."""

from __future__ import annotations

import copy
import gc
import hashlib
import os
import pickle
import sys
import zipimport
from collections.abc import Iterable
from typing import Any, Optional

from . import _core
from ._args import _check_bool, _check_str
from ._file_parts import FilePart
from ._parquet_output import ENCODED_COLUMNS
from .counts import WordCounts
from .tokenizer import Tokenizer

# Tokenizers loaded in this (worker) process, by the hash of what was shipped.
_LOADED: dict[str, Tokenizer] = {}
# Whether this (worker) process has been settled (`settle_worker`).
_SETTLED = False


# The errors a worker's call may raise that the driver raises again as
# themselves (more specific kinds first); any other is a RuntimeError naming
# it. Spark hands the driver a Py4J or PySpark error whatever the worker
# raised; the promise is the same Python exception as in one process.
PASSED_ON: tuple[type[Exception], ...] = (
    FileNotFoundError,
    IsADirectoryError,
    PermissionError,
    MemoryError,
    OverflowError,
    UnicodeError,
    ValueError,
    TypeError,
    OSError,
)


def settle_worker() -> None:
    """Once per worker process, after its first wpiece task: the zip
    archives on its import path are re-read only when they change
    (:func:`reread_only_when_changed`); the garbage is collected, then every
    object still alive is left out of the collector's later passes
    (``gc.freeze``). An engine's Python worker lives from task
    to task holding the engine's, pyarrow's and wpiece's modules, some 88
    thousand objects that each full collection walked again: on Spark (two
    workers, three encoding jobs to Parquet of 103 and 309 MB) a worker's
    full collections took 0.28-0.36 s, and 0.06 s once settled. Nothing
    that could be freed is kept: the collection comes first. Called in
    engines' tasks only, never on the driver."""
    global _SETTLED
    if _SETTLED:
        return
    _SETTLED = True
    if sys.version_info < (3, 13):
        for importer in list(sys.path_importer_cache.values()):
            if isinstance(importer, zipimport.zipimporter):
                reread_only_when_changed(importer)
    gc.collect()
    gc.freeze()


def reread_only_when_changed(importer: zipimport.zipimporter) -> None:
    """Makes ``importer`` re-read its archive's directory on
    ``importlib.invalidate_caches()`` only if the archive changed (its
    modification or change time, size or inode). PySpark's worker calls
    ``invalidate_caches`` before every task, and before Python 3.13 a
    zipimporter then re-reads its whole directory in Python: for the
    pyspark and py4j archives on a worker's path, about 65 ms a task, an
    eighth of an encoding task of 50 MB (py-spy on the workers). Python 3.13
    reads it again only when next needed."""

    def stat() -> Optional[tuple[int, int, int, int]]:
        try:
            st = os.stat(importer.archive)
        except OSError:
            return None
        # ctime too: the kernel sets it on every write or chmod, and no
        # tool can set it back (cp -p, rsync -t restore only mtime).
        return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)

    # Python 3.9's zipimporter has no such method: nothing to wrap.
    reread = getattr(importer, "invalidate_caches", None)
    if reread is None:
        return
    # Not the archive now: it may have changed since the importer last read
    # it (during the task that settles the worker). The first call reads.
    seen: Optional[tuple[int, int, int, int]] = None

    def invalidate_caches() -> None:
        nonlocal seen
        now = stat()
        if now is None or now != seen:
            reread()
            # A read that failed (the importer then holds no files) is tried
            # again at the next call, as without this wrapper.
            read = getattr(zipimport, "_zip_directory_cache", {}).get(importer.archive)
            seen = now if read else None

    # A zipimporter of a kind with no instance dictionary keeps its own.
    if hasattr(importer, "__dict__"):
        vars(importer)["invalidate_caches"] = invalidate_caches


def in_worker(call: Any, *args: Any) -> Any:
    """``call(*args)`` as an engine's task (a Ray remote function): the
    worker is settled after it (:func:`settle_worker`)."""
    result = call(*args)
    settle_worker()
    return result


def guarded(call: Any, *args: Any) -> tuple[Any, ...]:
    """``("ok", call(*args))``, or ``("error", kind, message)`` for an
    exception, to be raised again on the driver by :func:`raise_failed`.
    Runs in engines' tasks only: the worker is settled after a success
    (:func:`settle_worker`)."""
    try:
        value = call(*args)
    except Exception as e:  # noqa: BLE001 - handed to the driver
        kind = next((k for k in PASSED_ON if isinstance(e, k)), None)
        if kind is None:
            return ("error", "RuntimeError", f"{type(e).__name__}: {e}")
        return ("error", kind.__name__, str(e))
    settle_worker()
    return ("ok", value)


def raise_failed(outcomes: Iterable[tuple[Any, ...]]) -> list[Any]:
    """The values of :func:`guarded` outcomes, or the first error raised."""
    values = []
    for outcome in outcomes:
        if outcome[0] == "error":
            kinds = {k.__name__: k for k in PASSED_ON}
            raise kinds.get(outcome[1], RuntimeError)(outcome[2])
        values.append(outcome[1])
    return values


def within_job(counts: WordCounts, to_driver: bool = False) -> bytes:
    """``counts.to_bytes()`` for counts that travel within this job: between
    workers the same format with gzip's stored blocks (compressing at every
    level of the merge tree cost more than sending about 1.6x the bytes);
    compressed ``to_driver``: the driver holds what it receives whole, and
    a limit on a result (Spark's maxResultSize) bounds it."""
    return counts._core.to_bytes(to_driver)


def count_part(texts: Any, options: dict[str, Any]) -> bytes:
    """The counts of one part (an Arrow string column), as bytes to send to
    the driver, which merges every part's (compressed, as it holds them)."""
    counts = WordCounts(num_threads=1, **options)
    counts.add_arrow(texts)
    return counts.to_bytes()


def count_file_part(
    part: FilePart, jsonl_field: Optional[str], options: dict[str, Any], to_driver: bool = False
) -> bytes:
    """The counts of one file part, read and counted in the core on one
    thread (a worker's core), as bytes to send on (compressed if the part
    is the job's only one: ``to_driver``)."""
    part.check_unchanged()
    counts = WordCounts(num_threads=1, **options)
    counts._count(lambda core: core.add_file(part.path, jsonl_field, part.byte_range))
    return within_job(counts, to_driver)


def merge_in_order(parts: Iterable[bytes], options: dict[str, Any]) -> WordCounts:
    """The parts' counts added in the order given (first appearance kept)."""
    total = WordCounts(**options)
    for data in parts:
        total.update(WordCounts.from_bytes(data))
    return total


def from_worker(data: bytes) -> WordCounts:
    """Counts a worker of this job made (``to_bytes``): read without splitting
    each word again to check it (the file checks stay)."""
    return WordCounts._wrap(_core.WordCounter.from_bytes(data, "a worker's counts", None, True))


def merge_parts(parts: Iterable[bytes]) -> WordCounts:
    """Parts' counts, all made with the same options, merged in the order
    given: the first part is the base, each next one is moved into it
    (no copy of its words, no empty map filled first)."""
    stream = iter(parts)
    total = from_worker(next(stream))
    for data in stream:
        total._core.absorb(from_worker(data)._core)
    return total


def merge_to_bytes(parts: Iterable[bytes], to_driver: bool = False) -> bytes:
    """One level of a merge tree, on a worker: consecutive parts' counts
    merged in order, as bytes again (compressed at the root: ``to_driver``)."""
    return within_job(merge_parts(parts), to_driver)


def tree_levels(parts: int, fanout: int) -> list[int]:
    """The number of counts after each level of a merge tree that merges
    ``fanout`` consecutive ones at a time, down to one.

    >>> tree_levels(20, 8)
    [3, 1]
    >>> tree_levels(1, 8)
    []
    """
    levels = []
    while parts > 1:
        parts = -(-parts // fanout)
        levels.append(parts)
    return levels


def check_fanout(fanout: object) -> int:
    if isinstance(fanout, bool) or not isinstance(fanout, int):
        raise TypeError(f"fanout must be an int, got {type(fanout).__name__}")
    if fanout < 2:
        raise ValueError(f"fanout must be at least 2, got {fanout}")
    return fanout


def check_source(data: Any, name: str, kind: str, method: str, column: object) -> None:
    """The data of a Spark or Ray call, checked before either is touched:
    ``data`` (given as ``name``) must be a ``kind``, known by its ``method``,
    and ``column`` a column name."""
    if not callable(getattr(data, method, None)):
        raise TypeError(f"{name} must be {kind}, got {type(data).__name__}")
    _check_str(column, "column")


def check_encode(tokenizer: object, output: object, add_special_tokens: object) -> None:
    """The other arguments of a Spark or Ray ``encode``."""
    _check_tokenizer(tokenizer)
    _check_str(output, "output")
    _check_bool(add_special_tokens, "add_special_tokens")


def _check_tokenizer(tokenizer: object) -> None:
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"tokenizer must be a wpiece.Tokenizer, got {type(tokenizer).__name__}")


def ship(tokenizer: Tokenizer, unpadded: bool = False) -> bytes:
    """The tokenizer as bytes for the workers, without its training record
    (and, if ``unpadded``, without padding; the caller's is left as it is)."""
    _check_tokenizer(tokenizer)
    slim = copy.copy(tokenizer)
    slim.training_record = None
    if unpadded and slim.padding is not None:
        slim = pickle.loads(pickle.dumps(slim))
        slim.no_padding()
    return pickle.dumps(slim)


def load_shipped(payload: bytes) -> Tokenizer:
    """The shipped tokenizer, unpickled once per process."""
    key = hashlib.sha256(payload).hexdigest()
    tok = _LOADED.get(key)
    if tok is None:
        tok = pickle.loads(payload)
        _LOADED[key] = tok
    return tok


def task_threads() -> int:
    """The cores the engine gave the running task: Spark's task CPUs
    (``spark.task.cpus``), Ray's assigned CPUs (``num_cpus``), else 1.
    Encoding in a task uses these, as counting uses one: a pool of one
    thread per core of the machine in each of a machine's tasks would run
    cores x tasks threads, each with its own word cache."""
    import sys

    # A Spark or Ray worker has its engine imported already: importing one
    # here would only load it in processes that never use it.
    pyspark = sys.modules.get("pyspark")
    context = pyspark.TaskContext.get() if pyspark is not None else None
    if context is not None:
        return max(1, int(context.cpus()))
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        try:
            cpus = ray.get_runtime_context().get_assigned_resources().get("CPU")
        except AssertionError:  # a driver: Ray gives it no resources
            cpus = None
        if cpus:
            return max(1, int(cpus))
    return 1


def encode_column(tok: Tokenizer, texts: Any, add_special_tokens: bool) -> Any:
    """Ids per row as Arrow ``list<int32>`` (Spark and Ray have no uint32;
    ids are below 2^31), on the task's cores."""
    return as_int32(tok.encode_arrow(texts, add_special_tokens, num_threads=task_threads()))


def as_int32(lists: Any) -> Any:
    """``lists`` (lists, or large lists, of uint32 or of uint32 pairs) as the
    same lists of int32: the same buffers read as int32 when every value is
    below 2^31 (a cast copied them, a tenth of encoding a part to Parquet,
    and half of it with offsets), else a checked cast, which refuses."""
    import pyarrow as pa
    import pyarrow.compute as pc

    item = lists.type.value_type
    item = pa.list_(pa.int32(), item.list_size) if pa.types.is_fixed_size_list(item) else pa.int32()
    kind = pa.large_list(item) if pa.types.is_large_list(lists.type) else pa.list_(item)
    if isinstance(lists, pa.ChunkedArray):
        return pa.chunked_array([as_int32(c) for c in lists.chunks], kind)
    values = lists.flatten()
    while pa.types.is_fixed_size_list(values.type):
        values = values.flatten()
    largest = pc.max(values).as_py()
    if largest is None or largest < 2**31:
        return lists.view(kind)
    return lists.cast(kind)


def check_parquet_columns(attention_mask: object, offsets: object) -> None:
    _check_bool(attention_mask, "attention_mask")
    _check_bool(offsets, "offsets")


def encoded_columns(
    tok: Tokenizer,
    texts: Any,
    add_special_tokens: bool,
    attention_mask: bool,
    offsets: bool,
) -> dict[str, Any]:
    """The Parquet columns of a string column (see :func:`parquet_columns`).
    Truncation applies; the tokenizer is shipped unpadded
    (``ship(..., unpadded=True)``): collators pad. On the task's cores."""
    encoded = tok.encode_arrow(
        texts, add_special_tokens, return_offsets=offsets, num_threads=task_threads()
    )
    return parquet_columns(encoded, attention_mask, offsets)


def parquet_columns(encoded: Any, attention_mask: bool, offsets: bool) -> dict[str, Any]:
    """``encode_arrow``'s result as Parquet columns: ``input_ids``
    (``list<int32>``) and, if asked, ``attention_mask`` (``list<int8>``,
    ones: rows are written unpadded) and ``offsets``
    (``list<fixed_size_list<int32, 2>>``, char offsets; ``encoded`` is then
    the struct of both)."""
    import numpy as np
    import pyarrow as pa

    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    ids = encoded.field("input_ids") if offsets else encoded
    columns = {"input_ids": as_int32(ids)}
    if attention_mask:
        ones = pa.array(np.ones(len(ids.values), np.int8))
        columns["attention_mask"] = type(ids).from_arrays(ids.offsets, ones, mask=ids.is_null())
    if offsets:
        pairs = encoded.field("offsets")
        columns["offsets"] = as_int32(pairs)
    return columns


def encode_part_table(
    payload: bytes,
    texts: Any,
    extra: Any,
    add_special_tokens: bool,
    attention_mask: bool,
    offsets: bool,
) -> Any:
    """A part's Parquet table: ``extra`` columns (a table, or None) then the
    encoded columns of ``texts``."""
    import pyarrow as pa

    columns = encoded_columns(
        load_shipped(payload), texts, add_special_tokens, attention_mask, offsets
    )
    if extra is None:
        return pa.table(columns)
    table = extra
    for name, column in columns.items():
        table = table.append_column(name, column)
    return table


def encode_file_part_table(
    payload: bytes,
    part: FilePart,
    jsonl_field: Optional[str],
    add_special_tokens: bool,
    attention_mask: bool,
    offsets: bool,
) -> Any:
    """A file part's Parquet table, its text encoded by the core as it is
    read (mapped, not copied into a string column first: a task ran up to
    7% faster without that copy)."""
    import pyarrow as pa

    from .arrow import flat_lists

    part.check_unchanged()
    tok = load_shipped(payload)
    ids, rows, *pairs = _core.encode_file_part(
        tok._core,
        part.path,
        jsonl_field,
        part.byte_range,
        add_special_tokens,
        task_threads(),
        offsets,
    )
    encoded = flat_lists(ids, rows, pairs)
    return pa.table(parquet_columns(encoded, attention_mask, offsets))


def write_file_part(
    destination: tuple[str, str, str],
    index: int,
    payload: bytes,
    part: FilePart,
    jsonl_field: Optional[str],
    add_special_tokens: bool,
    attention_mask: bool,
    offsets: bool,
) -> int:
    """Encodes a file part and writes it as part ``index``; its rows."""
    from ._parquet_output import write_part

    table = encode_file_part_table(
        payload, part, jsonl_field, add_special_tokens, attention_mask, offsets
    )
    return write_part(destination, index, table)


def write_table_part(
    destination: tuple[str, str, str],
    index: int,
    payload: bytes,
    table: Any,
    column: str,
    add_special_tokens: bool,
    attention_mask: bool,
    offsets: bool,
    schema: Any = None,
) -> int:
    """Encodes a table's string column and writes the table with the encoded
    columns as part ``index``; its rows. ``schema``: the whole source's,
    for an empty table that lost its columns (a Ray block a filter emptied)."""
    from ._parquet_output import write_part

    if schema is not None and table.num_rows == 0 and column not in table.column_names:
        table = schema.empty_table()
    encoded = encode_part_table(
        payload, table.column(column), table, add_special_tokens, attention_mask, offsets
    )
    return write_part(destination, index, encoded)


def check_free_columns(names: Iterable[str], what: str) -> None:
    """The columns Parquet output adds must not be there already: by name,
    by a name that differs only in case (Spark reading the parts takes them
    for the same), or by a dotted name the Parquet writer would take for
    the path of their values (``input_ids.list.element``)."""
    for name in names:
        lowered = name.lower()
        for ours in ENCODED_COLUMNS:
            if lowered == ours or lowered.startswith(ours + "."):
                why = "" if name == ours else f" (too close to {ours!r}, which the output adds)"
                raise ValueError(f"the {what} already has a column {name!r}{why}")
