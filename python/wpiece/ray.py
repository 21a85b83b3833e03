"""wpiece on Ray (``pip install 'wpiece[ray]'``): count words across a Ray
cluster and encode Ray Datasets, batch by batch in Arrow format (no Python
``str`` per row), the tokenizer loaded once per actor. Text files are
counted and encoded by wpiece's own reader in Ray tasks (``count_files``,
``encode_files_to_parquet``): each task reads its part of the files (large
files by byte ranges cut at line starts, ``.gz`` files whole), and counts
are merged by tasks in a tree. Paths must name the same files on the driver
and on every node (a shared filesystem).

>>> import ray, wpiece, wpiece.ray                           # doctest: +SKIP
>>> ds = ray.data.read_text("corpus/*.txt")                   # doctest: +SKIP
>>> counts = wpiece.ray.count_words(ds, column="text")        # doctest: +SKIP
>>> tok = wpiece.train_from_counts(counts, vocab_size=30000)  # doctest: +SKIP
>>> wpiece.ray.encode(ds, tok).write_parquet("ids")           # doctest: +SKIP
>>> counts = wpiece.ray.count_files("corpus/*.txt")           # doctest: +SKIP
>>> wpiece.ray.encode_files_to_parquet("corpus/*.txt", tok, "ids")  # doctest: +SKIP

(The tests run these against a real local Ray, ``ray.init(num_cpus=2)``,
and a cluster of a head and a second node started with ``ray start``.)
"""

from __future__ import annotations

from typing import Any, Optional, Union

from ._distributed import (
    check_encode,
    check_fanout,
    check_free_columns,
    check_parquet_columns,
    check_source,
    count_file_part,
    count_part,
    encode_column,
    guarded,
    in_worker,
    load_shipped,
    merge_in_order,
    merge_parts,
    merge_to_bytes,
    raise_failed,
    ship,
    write_file_part,
    write_table_part,
)
from ._file_parts import check_jsonl_field, plan_parts
from ._parquet_output import DEFAULT_COMPRESSION, ParquetFolder
from .counts import WordCounts, check_counting_options
from .documents import Files
from .tokenizer import Tokenizer

__all__ = ["count_files", "count_words", "encode", "encode_files_to_parquet", "encode_to_parquet"]


def _merge_task(to_driver: bool, *parts: bytes) -> bytes:
    """A merge task: consecutive parts' counts in order (Ray hands the
    parts' values, not their references); the root's go to the driver."""
    return merge_to_bytes(parts, to_driver)


def _task(ray: Any, call: Any) -> Any:
    """Submits ``call(*args)`` as a one-CPU Ray task run through
    :func:`in_worker`, named after ``call`` for Ray's tools; returns its
    reference."""
    remote = ray.remote(num_cpus=1)(in_worker).options(name=f"wpiece.{call.__name__}")
    return lambda *args: remote.remote(call, *args)


def _cluster_cpus(ray: Any) -> int:
    if not ray.is_initialized():
        ray.init()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _results(ray: Any, refs: list[Any], cancel_order: Optional[list[Any]] = None) -> list[Any]:
    """The results of ``refs``; on any error or Ctrl-C the tasks not done
    yet (of ``cancel_order``, every task ``refs`` wait on, if given; else
    ``refs``) are cancelled first, in that order: a running one gets
    ``KeyboardInterrupt``, which wpiece's core heeds within 50 ms.

    Ray 2.60's driver aborts when a task replies while it is being cancelled
    (a failed check in ``TaskManager::CompletePendingTask``,
    ray-project/ray#54846). So only tasks not done are cancelled, never
    forced, and in an order that keeps replies away from the cancelling: a
    merge before its inputs (else a cancelled input releases its merge, which
    runs at once on the input's error and replies while it is being
    cancelled), and tasks that wait on nothing in submission order (the
    order Ray's scheduler usually starts them: the running ones first, then
    the queue from its front, before a freed CPU takes the next part).
    Counting 230 parts of 1 MB on 2 CPUs, Ctrl-C aborted the driver 5 times
    in 20 with inputs cancelled before merges, once in 200 in this order
    (probably a part finishing by itself just as it was cancelled)."""
    try:
        return list(ray.get(refs))
    except BaseException:
        tasks = cancel_order or refs
        _, running = ray.wait(tasks, num_returns=len(tasks), timeout=0)
        for ref in running:
            try:
                ray.cancel(ref)
            except Exception:  # noqa: BLE001 - finished or gone meanwhile
                pass
        raise


def _string_column(dataset: Any, column: str) -> None:
    import pyarrow as pa

    schema = dataset.schema()
    if schema is None or column not in schema.names:
        names = [] if schema is None else schema.names
        raise ValueError(f"no column {column!r} in the Dataset (it has {names})")
    kind = schema.base_schema.field(column).type if hasattr(schema, "base_schema") else None
    if kind is not None and not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        raise TypeError(f"column {column!r} holds {kind}, not strings")


def count_words(
    dataset: Any, column: str = "text", *, tokenizer: Any = None, **options: Any
) -> WordCounts:
    """Counts the words of a string column: each block is counted by a Ray
    task, and the blocks' counts are merged on the driver in the Dataset's
    order, so the result (order included) is what :func:`wpiece.count_words`
    gives on the rows in order. Null rows count nothing. ``options``:
    :data:`wpiece.counts.COUNTING_OPTIONS`, or ``tokenizer=`` to split as a
    tokenizer's pipeline does.
    """
    import pyarrow as pa

    check_source(dataset, "dataset", "a Ray Dataset", "map_batches", column)
    if tokenizer is not None:
        options = {**options, "tokenizer": tokenizer}
    check_counting_options("count_words", options)
    _string_column(dataset, column)

    def count_block(block: Any) -> Any:
        # An error is raised again on the driver as one process raises it.
        outcome = guarded(count_part, block.column(column), options)
        ok = outcome[0] == "ok"
        return pa.table(
            {
                "counts": pa.array([outcome[1] if ok else None], pa.binary()),
                "kind": pa.array([None if ok else outcome[1]], pa.string()),
                "message": pa.array([None if ok else outcome[2]], pa.string()),
            }
        )

    parts = dataset.select_columns([column]).map_batches(
        count_block, batch_format="pyarrow", batch_size=None
    )
    # The merge must see the blocks in the Dataset's order. A Dataset runs
    # with the context it was made with (shared with the Datasets made from
    # it): set there for this run, then put back.
    options_of_run = parts.context.execution_options
    ordered = options_of_run.preserve_order
    options_of_run.preserve_order = True
    try:
        outcomes = (
            ("ok", r["counts"]) if r["kind"] is None else ("error", r["kind"], r["message"])
            for r in parts.iter_rows()
        )
        return merge_in_order(raise_failed(outcomes), options)
    finally:
        options_of_run.preserve_order = ordered


class _Encoder:
    """A Ray actor's encoder: the tokenizer is unpickled once, when the actor starts."""

    def __init__(self, payload: bytes, column: str, output: str, add_special_tokens: bool):
        self.tok = load_shipped(payload)
        self.column, self.output = column, output
        self.add_special_tokens = add_special_tokens

    def __call__(self, batch: Any) -> Any:
        ids = encode_column(self.tok, batch.column(self.column), self.add_special_tokens)
        return batch.append_column(self.output, ids)


def encode(
    dataset: Any,
    tokenizer: Tokenizer,
    column: str = "text",
    output: str = "input_ids",
    *,
    add_special_tokens: bool = True,
    concurrency: Union[int, tuple[int, int]] = 1,
    num_cpus: float = 1,
    batch_size: Optional[int] = 4096,
) -> Any:
    """The Dataset with a column ``output`` of ids (``list<int32>``) per row
    of the string column ``column``, as ``tokenizer.encode_arrow`` gives
    them (its truncation applies); a null row gives null. Batches go to
    ``concurrency`` actors (an int, or a ``(min, max)`` autoscaling range),
    each loading the tokenizer once and reserving ``num_cpus`` (all CPUs
    held by actors leave none for the tasks that feed them: keep some
    free). Lazy, as Ray Datasets are.
    """
    check_source(dataset, "dataset", "a Ray Dataset", "map_batches", column)
    check_encode(tokenizer, output, add_special_tokens)
    _string_column(dataset, column)
    schema = dataset.schema()
    if output in schema.names:
        raise ValueError(f"the Dataset already has a column {output!r}")
    return dataset.map_batches(
        _Encoder,
        fn_constructor_args=(ship(tokenizer), column, output, add_special_tokens),
        batch_format="pyarrow",
        batch_size=batch_size,
        concurrency=concurrency,
        num_cpus=num_cpus,
    )


def count_files(
    files: Files,
    *,
    jsonl_field: Optional[str] = None,
    part_bytes: Optional[int] = None,
    fanout: int = 8,
    tokenizer: Any = None,
    **options: Any,
) -> WordCounts:
    """Counts the words of text files on the Ray cluster: each task reads
    one part of the files with wpiece's reader and counts it on its CPU;
    the parts' counts are merged by tasks, ``fanout`` consecutive ones at a
    time, so the driver receives one set of counts. The result, order
    included, is :func:`wpiece.count_words` on the files. Arguments as
    :func:`wpiece.spark.count_files` (parts sized by the cluster's CPUs).

    >>> counts = wpiece.ray.count_files("corpus/*.txt")  # doctest: +SKIP
    """
    import ray

    if tokenizer is not None:
        options = {**options, "tokenizer": tokenizer}
    check_counting_options("count_files", options)
    check_jsonl_field(jsonl_field)
    check_fanout(fanout)
    parts = plan_parts(files, lambda: _cluster_cpus(ray), part_bytes, jsonl_field)
    shared = ray.put(options)
    count = _task(ray, count_file_part)
    merge = _task(ray, _merge_task)
    alone = len(parts) == 1
    counts = [count(part, jsonl_field, shared, alone) for part in parts]
    # Cancelled root first, each merge before its inputs, then the parts.
    refs, merges = counts, []
    while len(refs) > 1:
        root = len(refs) <= fanout
        refs = [merge(root, *refs[i : i + fanout]) for i in range(0, len(refs), fanout)]
        merges += refs
    [data] = _results(ray, refs, merges[::-1] + counts)
    return merge_parts([data])


def encode_files_to_parquet(
    files: Files,
    tokenizer: Tokenizer,
    path: Any,
    *,
    jsonl_field: Optional[str] = None,
    part_bytes: Optional[int] = None,
    add_special_tokens: bool = True,
    attention_mask: bool = False,
    offsets: bool = False,
    overwrite: bool = False,
    compression: str = DEFAULT_COMPRESSION,
) -> int:
    """Encodes text files to a folder of Parquet files in Ray tasks, one
    per part of the files; columns, atomicity, compression and result as
    :func:`wpiece.spark.encode_files_to_parquet`.

    >>> wpiece.ray.encode_files_to_parquet("corpus/*.txt", tok, "ids")  # doctest: +SKIP
    """
    import ray

    check_encode(tokenizer, "input_ids", add_special_tokens)
    check_parquet_columns(attention_mask, offsets)
    check_jsonl_field(jsonl_field)
    ParquetFolder.check(path, overwrite, compression)
    parts = plan_parts(files, lambda: _cluster_cpus(ray), part_bytes, jsonl_field)
    with ParquetFolder(path, overwrite, compression) as folder:
        payload = ray.put(ship(tokenizer, unpadded=True))
        task = _task(ray, write_file_part)
        flags = (add_special_tokens, attention_mask, offsets)
        refs = [
            task(folder.destination, k, payload, part, jsonl_field, *flags)
            for k, part in enumerate(parts)
        ]
        rows = _results(ray, refs)
        folder.commit(range(len(parts)))
    return int(sum(rows))


def encode_to_parquet(
    dataset: Any,
    tokenizer: Tokenizer,
    path: Any,
    column: str = "text",
    *,
    add_special_tokens: bool = True,
    attention_mask: bool = False,
    offsets: bool = False,
    overwrite: bool = False,
    compression: str = DEFAULT_COMPRESSION,
) -> int:
    """Writes the Dataset with its string column ``column`` encoded as a
    folder of Parquet files, one per block in the Dataset's order, each
    written by a Ray task; columns, atomicity, compression and result as
    :func:`wpiece.spark.encode_to_parquet`. The Dataset is materialized
    (its blocks held in the object store).

    >>> wpiece.ray.encode_to_parquet(ds, tok, "ids")  # doctest: +SKIP
    """
    import ray

    check_source(dataset, "dataset", "a Ray Dataset", "map_batches", column)
    check_encode(tokenizer, "input_ids", add_special_tokens)
    check_parquet_columns(attention_mask, offsets)
    ParquetFolder.check(path, overwrite, compression)
    _string_column(dataset, column)
    check_free_columns(dataset.schema().names, "Dataset")
    with ParquetFolder(path, overwrite, compression) as folder:
        payload = ray.put(ship(tokenizer, unpadded=True))
        task = _task(ray, write_table_part)
        flags = (add_special_tokens, attention_mask, offsets)
        schema = getattr(dataset.schema(), "base_schema", None)
        blocks = dataset.to_arrow_refs()
        refs = [
            task(folder.destination, k, payload, block, column, *flags, schema)
            for k, block in enumerate(blocks)
        ]
        rows = _results(ray, refs)
        folder.commit(range(len(refs)))
    return int(sum(rows))
