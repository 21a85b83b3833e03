"""What the Spark and Ray integrations share: counts made on workers and
merged in order on the driver, and a tokenizer shipped once and loaded once
per worker process."""

from __future__ import annotations

import copy
import hashlib
import pickle
from collections.abc import Iterable
from typing import Any

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


def ship(tokenizer: Tokenizer) -> bytes:
    """The tokenizer as bytes for the workers, without its training record."""
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"expected a wpiece.Tokenizer, got {type(tokenizer).__name__}")
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
