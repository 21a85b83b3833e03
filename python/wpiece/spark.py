"""wpiece on Spark (``pip install 'wpiece[spark]'``): count words across a
cluster and encode DataFrames, both through Arrow (``mapInArrow``): no Python
``str`` per row, one tokenizer per executor process. Text files are counted
and encoded by wpiece's own reader on the executors (``count_files``,
``encode_files_to_parquet``): each executor reads its part of the files
(large files by byte ranges cut at line starts, ``.gz`` files whole), and
counts are merged on the executors in a tree. Paths must name the same files
on the driver and on every executor (a shared filesystem).

>>> from pyspark.sql import SparkSession            # doctest: +SKIP
>>> import wpiece, wpiece.spark                      # doctest: +SKIP
>>> df = spark.read.text("corpus/*.txt")             # doctest: +SKIP
>>> counts = wpiece.spark.count_words(df, column="value")  # doctest: +SKIP
>>> tok = wpiece.train_from_counts(counts, vocab_size=30000)  # doctest: +SKIP
>>> wpiece.spark.encode(df, tok, column="value").write.parquet("ids")  # doctest: +SKIP
>>> counts = wpiece.spark.count_files(spark, "corpus/*.txt")  # doctest: +SKIP
>>> wpiece.spark.encode_files_to_parquet(spark, "corpus/*.txt", tok, "ids")  # doctest: +SKIP

(The tests run these against a real local Spark, ``local[2]``, and a
standalone cluster of a master and two worker JVMs.)
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any, Optional

from ._distributed import (
    check_encode,
    check_fanout,
    check_free_columns,
    check_parquet_columns,
    check_source,
    count_file_part,
    encode_column,
    guarded,
    load_shipped,
    merge_in_order,
    merge_parts,
    merge_to_bytes,
    raise_failed,
    ship,
    tree_levels,
    write_file_part,
    write_table_part,
)
from ._file_parts import check_jsonl_field, plan_parts
from ._parquet_output import DEFAULT_COMPRESSION, ParquetFolder
from .counts import WordCounts, check_counting_options
from .documents import Files
from .tokenizer import Tokenizer

__all__ = ["count_files", "count_words", "encode", "encode_files_to_parquet", "encode_to_parquet"]


def _collect(job: Any, sc: Any) -> list[Any]:
    """``job.collect()``, with Ctrl-C raising ``KeyboardInterrupt`` at once.
    The job runs on a thread while this one waits: PySpark's SIGINT handler
    (cancel every job, raise ``KeyboardInterrupt``) then runs here, outside
    a call into the JVM; called during one, it fails on the connection the
    call holds and the caller sees a ``Py4JError`` instead."""
    if sc is None:  # Spark Connect: no context here, nor PySpark's handler
        return list(job.collect())
    from pyspark import InheritableThread

    done: dict[str, Any] = {}

    def run() -> None:
        try:
            done["rows"] = job.collect()
        except BaseException as e:  # noqa: BLE001 - raised again below
            done["error"] = e

    # It inherits this thread's job group, pool and other local properties.
    thread = InheritableThread(target=run, name="wpiece-spark-job", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.05)
    except KeyboardInterrupt:
        sc.cancelAllJobs()  # done by PySpark's handler too; harmless twice
        raise
    if "error" in done:
        raise done["error"]
    return list(done["rows"])


def _context_of(df: Any) -> Any:
    """The DataFrame's SparkContext, or None under Spark Connect (which has
    none on the client)."""
    try:
        return df.sparkSession.sparkContext
    except Exception:  # noqa: BLE001 - PySparkAttributeError under Connect
        return None


def _context(spark: Any) -> Any:
    """The SparkContext of a SparkSession (or the context itself)."""
    sc = getattr(spark, "sparkContext", spark)
    if not callable(getattr(sc, "parallelize", None)):
        raise TypeError(f"spark must be a SparkSession, got {type(spark).__name__}")
    return sc


def _string_column(df: Any, column: str) -> None:
    from pyspark.sql.types import StringType

    if column not in df.columns:
        raise ValueError(f"no column {column!r} in the DataFrame (it has {df.columns})")
    kind = df.schema[column].dataType
    if not isinstance(kind, StringType):
        raise TypeError(f"column {column!r} holds {kind.simpleString()}, not strings")


def count_words(
    df: Any, column: str = "text", *, tokenizer: Any = None, **options: Any
) -> WordCounts:
    """Counts the words of a string column: each partition is counted on an
    executor, and the partitions' counts are merged on the driver in
    partition order, so the result (order included) is what
    :func:`wpiece.count_words` gives on the rows in order. Null rows count
    nothing. ``options``: :data:`wpiece.counts.COUNTING_OPTIONS`, or
    ``tokenizer=`` to split as a tokenizer's pipeline does.
    """
    check_source(df, "df", "a pyspark DataFrame", "mapInArrow", column)
    if tokenizer is not None:
        options = {**options, "tokenizer": tokenizer}
    check_counting_options("count_words", options)
    _string_column(df, column)
    import pyarrow as pa

    def count_batches(batches: Iterator[Any]) -> bytes:
        counts = WordCounts(num_threads=1, **options)
        for batch in batches:
            counts.add_arrow(batch.column(0))
        return counts.to_bytes()

    def count_partition(batches: Iterator[Any]) -> Iterator[Any]:
        from pyspark import TaskContext

        part = TaskContext.get().partitionId()
        # An error is raised again on the driver as one process raises it.
        outcome = guarded(count_batches, batches)
        ok = outcome[0] == "ok"
        yield pa.RecordBatch.from_arrays(
            [
                pa.array([part], pa.int64()),
                pa.array([outcome[1] if ok else None], pa.binary()),
                pa.array([None if ok else outcome[1]], pa.string()),
                pa.array([None if ok else outcome[2]], pa.string()),
            ],
            names=["part", "counts", "kind", "message"],
        )

    schema = "part long, counts binary, kind string, message string"
    job = df.select(column).mapInArrow(count_partition, schema)
    rows = sorted(_collect(job, _context_of(df)), key=lambda r: r["part"])
    blobs = raise_failed(
        ("ok", r["counts"]) if r["kind"] is None else ("error", r["kind"], r["message"])
        for r in rows
    )
    return merge_in_order(blobs, options)


def encode(
    df: Any,
    tokenizer: Tokenizer,
    column: str = "text",
    output: str = "input_ids",
    *,
    add_special_tokens: bool = True,
) -> Any:
    """The DataFrame with a column ``output`` of ids (``array<int>``) per row
    of the string column ``column``, as ``tokenizer.encode_arrow`` gives them
    (its truncation applies); a null row gives null. The tokenizer is
    broadcast once and unpickled once per executor process.
    """
    check_source(df, "df", "a pyspark DataFrame", "mapInArrow", column)
    check_encode(tokenizer, output, add_special_tokens)
    _string_column(df, column)
    if output in df.columns:
        raise ValueError(f"the DataFrame already has a column {output!r}")
    from pyspark.sql.types import ArrayType, IntegerType, StructField, StructType

    payload = df.sparkSession.sparkContext.broadcast(ship(tokenizer))
    index = df.columns.index(column)
    schema = StructType([*df.schema.fields, StructField(output, ArrayType(IntegerType()))])

    def encode_partition(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        tok = load_shipped(payload.value)
        for batch in batches:
            ids = encode_column(tok, batch.column(index), add_special_tokens)
            yield pa.RecordBatch.from_arrays(
                [*batch.columns, ids], names=[*batch.schema.names, output]
            )

    return df.mapInArrow(encode_partition, schema)


def count_files(
    spark: Any,
    files: Files,
    *,
    jsonl_field: Optional[str] = None,
    part_bytes: Optional[int] = None,
    fanout: int = 8,
    tokenizer: Any = None,
    **options: Any,
) -> WordCounts:
    """Counts the words of text files on the cluster: each task reads one
    part of the files with wpiece's reader and counts it on its core; the
    parts' counts are merged on the executors, ``fanout`` consecutive ones
    at a time, so the driver receives one set of counts (its memory is that
    of the result, whatever the number of parts). The result, order
    included, is :func:`wpiece.count_words` on the files.

    ``files``: paths or globs (plain or ``.gz``; ``.jsonl`` with
    ``jsonl_field``), seen at the same paths by the driver and every
    executor. ``part_bytes``: the size of a part (default: parts of 4 to 128
    MiB that keep the default parallelism's cores evenly busy, equal pieces
    of a file when its parts of the plain bytes over the cores would not).
    ``options``:
    :data:`wpiece.counts.COUNTING_OPTIONS`, or ``tokenizer=``.

    >>> counts = wpiece.spark.count_files(spark, "corpus/*.txt")  # doctest: +SKIP
    """
    sc = _context(spark)
    if tokenizer is not None:
        options = {**options, "tokenizer": tokenizer}
    check_counting_options("count_files", options)
    check_jsonl_field(jsonl_field)
    check_fanout(fanout)
    parts = plan_parts(files, lambda: int(sc.defaultParallelism), part_bytes, jsonl_field)

    # Each value is a `guarded` outcome: a part's error reaches the driver
    # as the exception counting it in one process raises.
    # The counts the driver receives (the root's) are compressed.
    alone = len(parts) == 1

    def count(item: tuple[int, Any]) -> tuple[int, Any]:
        return item[0], guarded(count_file_part, item[1], jsonl_field, options, alone)

    def merge(group: tuple[int, Any], root: bool) -> tuple[int, Any]:
        ordered = [outcome for _, outcome in sorted(group[1], key=lambda kv: kv[0])]
        failed = [o for o in ordered if o[0] == "error"]
        if failed:
            return group[0], failed[0]
        return group[0], guarded(merge_to_bytes, [o[1] for o in ordered], root)

    counted = sc.parallelize(list(enumerate(parts)), len(parts)).map(count)
    for width in tree_levels(len(parts), fanout):
        counted = (
            counted.map(lambda kv: (kv[0] // fanout, kv))
            .groupByKey(numPartitions=width)
            .map(functools.partial(merge, root=width == 1))
        )
    [(_, outcome)] = _collect(counted, sc)
    return merge_parts(raise_failed([outcome]))


def encode_files_to_parquet(
    spark: Any,
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
    """Encodes text files to a folder of Parquet files, one per part of the
    files (in order: ``part-00000.parquet``, ...), each read and encoded by
    wpiece on an executor. Columns: ``input_ids`` (``list<int32>``), and if
    asked ``attention_mask`` and ``offsets`` (char offsets); rows unpadded,
    truncation as set. Every part is written under a temporary name and
    renamed, and the folder appears (or replaces the old one, with
    ``overwrite``) only once every part is there; a failed job leaves
    nothing. ``compression``: the parts' codec, one of ``none`` (default:
    the integer columns are bit-packed, DELTA_BINARY_PACKED, fastest to
    write and about half the plain size), ``lz4`` and ``snappy`` (packed too,
    a little smaller), ``zstd`` (smaller files, plain values, fast),
    ``gzip`` or ``brotli`` (smallest, slow); Spark, pyarrow, Ray and HF
    datasets read them all. Returns the
    number of rows (documents) written.

    >>> wpiece.spark.encode_files_to_parquet(spark, "corpus/*.txt", tok, "ids")  # doctest: +SKIP
    """
    sc = _context(spark)
    check_encode(tokenizer, "input_ids", add_special_tokens)
    check_parquet_columns(attention_mask, offsets)
    check_jsonl_field(jsonl_field)
    ParquetFolder.check(path, overwrite, compression)
    parts = plan_parts(files, lambda: int(sc.defaultParallelism), part_bytes, jsonl_field)
    with ParquetFolder(path, overwrite, compression) as folder:
        destination = folder.destination
        payload = sc.broadcast(ship(tokenizer, unpadded=True))

        def write(item: tuple[int, Any]) -> tuple[Any, ...]:
            k, part = item
            return guarded(
                write_file_part,
                destination,
                k,
                payload.value,
                part,
                jsonl_field,
                add_special_tokens,
                attention_mask,
                offsets,
            )

        job = sc.parallelize(list(enumerate(parts)), len(parts)).map(write)
        rows = raise_failed(_collect(job, sc))
        folder.commit(range(len(parts)))
    return int(sum(rows))


def encode_to_parquet(
    df: Any,
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
    """Writes the DataFrame with its string column ``column`` encoded (the
    columns of :func:`encode_files_to_parquet` added) as a folder of Parquet
    files, one per partition, each written by its executor under a
    temporary name and renamed; the folder appears (or replaces the old one)
    only once complete, and a failed job leaves nothing. ``compression`` as
    in :func:`encode_files_to_parquet`. Returns the rows.

    >>> wpiece.spark.encode_to_parquet(df, tok, "ids", column="value")  # doctest: +SKIP
    """
    check_source(df, "df", "a pyspark DataFrame", "mapInArrow", column)
    check_encode(tokenizer, "input_ids", add_special_tokens)
    check_parquet_columns(attention_mask, offsets)
    ParquetFolder.check(path, overwrite, compression)
    _string_column(df, column)
    check_free_columns(df.columns, "DataFrame")
    with ParquetFolder(path, overwrite, compression) as folder:
        destination = folder.destination
        payload = df.sparkSession.sparkContext.broadcast(ship(tokenizer, unpadded=True))

        def write_partition(batches: Iterator[Any]) -> Iterator[Any]:
            import pyarrow as pa
            from pyspark import TaskContext

            tables = [pa.Table.from_batches([b]) for b in batches]
            if not tables:
                return
            part = TaskContext.get().partitionId()
            table = pa.concat_tables(tables)
            outcome = guarded(
                write_table_part,
                destination,
                part,
                payload.value,
                table,
                column,
                add_special_tokens,
                attention_mask,
                offsets,
            )
            rows = outcome[1] if outcome[0] == "ok" else 0
            kind, message = (None, None) if outcome[0] == "ok" else outcome[1:]
            yield pa.RecordBatch.from_arrays(
                [pa.array([v], t) for v, t in zip((part, rows, kind, message), types)],
                names=["part", "rows", "kind", "message"],
            )

        import pyarrow as pa

        types = [pa.int64(), pa.int64(), pa.string(), pa.string()]
        schema = "part long, rows long, kind string, message string"
        job = df.mapInArrow(write_partition, schema)
        written = _collect(job, _context_of(df))
        raise_failed(
            ("ok", r["rows"]) if r["kind"] is None else ("error", r["kind"], r["message"])
            for r in sorted(written, key=lambda r: r["part"])
        )
        if not written:
            # No partition held a row: one empty part keeps the columns
            # (a folder with no part reads back as a table without any).
            from pyspark.sql.pandas.types import to_arrow_schema

            empty = to_arrow_schema(df.schema).empty_table()
            flags = (add_special_tokens, attention_mask, offsets)
            write_table_part(destination, 0, ship(tokenizer, unpadded=True), empty, column, *flags)
            written = [{"part": 0, "rows": 0}]
        folder.commit(r["part"] for r in written)
    return int(sum(r["rows"] for r in written))
