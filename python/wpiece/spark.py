"""wpiece on Spark (``pip install 'wpiece[spark]'``): count words across a
cluster and encode DataFrames, both through Arrow (``mapInArrow``): no Python
``str`` per row, one tokenizer per executor process.

>>> from pyspark.sql import SparkSession            # doctest: +SKIP
>>> import wpiece, wpiece.spark                      # doctest: +SKIP
>>> df = spark.read.text("corpus/*.txt")             # doctest: +SKIP
>>> counts = wpiece.spark.count_words(df, column="value")  # doctest: +SKIP
>>> tok = wpiece.train_from_counts(counts, vocab_size=30000)  # doctest: +SKIP
>>> wpiece.spark.encode(df, tok, column="value").write.parquet("ids")  # doctest: +SKIP

(The tests run these against a real local Spark, ``local[2]``.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._distributed import (
    check_encode,
    check_source,
    encode_column,
    load_shipped,
    merge_in_order,
    ship,
)
from .counts import WordCounts, check_counting_options
from .tokenizer import Tokenizer

__all__ = ["count_words", "encode"]


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

    def count_partition(batches: Iterator[Any]) -> Iterator[Any]:
        from pyspark import TaskContext

        counts = WordCounts(num_threads=1, **options)
        for batch in batches:
            counts.add_arrow(batch.column(0))
        part = TaskContext.get().partitionId()
        yield pa.RecordBatch.from_arrays(
            [pa.array([part], pa.int64()), pa.array([counts.to_bytes()], pa.binary())],
            names=["part", "counts"],
        )

    rows = df.select(column).mapInArrow(count_partition, "part long, counts binary").collect()
    return merge_in_order((r["counts"] for r in sorted(rows, key=lambda r: r["part"])), options)


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
