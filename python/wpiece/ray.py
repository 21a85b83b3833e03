"""wpiece on Ray (``pip install 'wpiece[ray]'``): count words across a Ray
cluster and encode Ray Datasets, batch by batch in Arrow format (no Python
``str`` per row), the tokenizer loaded once per actor.

>>> import ray, wpiece, wpiece.ray                           # doctest: +SKIP
>>> ds = ray.data.read_text("corpus/*.txt")                   # doctest: +SKIP
>>> counts = wpiece.ray.count_words(ds, column="text")        # doctest: +SKIP
>>> tok = wpiece.train_from_counts(counts, vocab_size=30000)  # doctest: +SKIP
>>> wpiece.ray.encode(ds, tok).write_parquet("ids")           # doctest: +SKIP

(The tests run these against a real local Ray, ``ray.init(num_cpus=2)``.)
"""

from __future__ import annotations

from typing import Any, Optional, Union

from ._distributed import (
    check_encode,
    check_source,
    count_part,
    encode_column,
    load_shipped,
    merge_in_order,
    ship,
)
from .counts import WordCounts, check_counting_options
from .tokenizer import Tokenizer

__all__ = ["count_words", "encode"]


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
        return pa.table({"counts": pa.array([count_part(block.column(column), options)])})

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
        return merge_in_order((row["counts"] for row in parts.iter_rows()), options)
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
