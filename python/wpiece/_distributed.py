"""What the Spark and Ray integrations share: counts made on workers and
merged in order on the driver, and a tokenizer shipped once and loaded once
per worker process."""

from __future__ import annotations

import copy
import hashlib
import pickle
from collections.abc import Iterable
from typing import Any

from ._args import _check_bool, _check_str
from .counts import WordCounts
from .tokenizer import Tokenizer

# Tokenizers loaded in this (worker) process, by the hash of what was shipped.
_LOADED: dict[str, Tokenizer] = {}


def count_part(texts: Any, options: dict[str, Any]) -> bytes:
    """The counts of one part (an Arrow string column), as bytes to send back."""
    counts = WordCounts(num_threads=1, **options)
    counts.add_arrow(texts)
    return counts.to_bytes()


def merge_in_order(parts: Iterable[bytes], options: dict[str, Any]) -> WordCounts:
    """The parts' counts added in the order given (first appearance kept)."""
    total = WordCounts(**options)
    for data in parts:
        total.update(WordCounts.from_bytes(data))
    return total


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


def ship(tokenizer: Tokenizer) -> bytes:
    """The tokenizer as bytes for the workers, without its training record."""
    _check_tokenizer(tokenizer)
    slim = copy.copy(tokenizer)
    slim.training_record = None
    return pickle.dumps(slim)


def load_shipped(payload: bytes) -> Tokenizer:
    """The shipped tokenizer, unpickled once per process."""
    key = hashlib.sha256(payload).hexdigest()
    tok = _LOADED.get(key)
    if tok is None:
        tok = pickle.loads(payload)
        _LOADED[key] = tok
    return tok


def encode_column(tok: Tokenizer, texts: Any, add_special_tokens: bool) -> Any:
    """Ids per row as Arrow ``list<int32>`` (Spark and Ray have no uint32;
    ids are below 2^31)."""
    import pyarrow as pa

    ids = tok.encode_arrow(texts, add_special_tokens)
    kind = pa.large_list(pa.int32()) if pa.types.is_large_list(ids.type) else pa.list_(pa.int32())
    return ids.cast(kind)
