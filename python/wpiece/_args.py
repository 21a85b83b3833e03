"""The arguments of the public API: their types and the checks that turn a
bad one into a clear ``TypeError`` or ``ValueError`` before the core sees it.
A leaf module: every other module may use it."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, Optional, Union

from ._rows import PaddingSpec, TruncationSpec
from .documents import PathLike

Padding = Union[bool, Literal["longest", "max_length"]]
"""A batch call's padding: to the longest (``True``, ``"longest"``), to
``max_length``, or as the tokenizer's settings say (``False``)."""
UnknownMode = Literal["word", "char"]
"""A word with an unknown character: one unknown token, or one per unknown character."""
PreTokenizer = Literal["bert", "whitespace"]
"""Split at whitespace and punctuation (BERT), or at whitespace only."""


def _path(path: PathLike) -> Path:
    """A path argument: str or os.PathLike, not empty."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be str or os.PathLike, got {type(path).__name__}")
    if os.fspath(path) in ("", b""):
        raise ValueError("the path is empty")
    return Path(os.fsdecode(path))


def _check_threads(num_threads: Optional[int]) -> None:
    if num_threads is not None and num_threads < 1:
        raise ValueError("num_threads must be at least 1")


_U32_MAX = 2**32 - 1
_U64_MAX = 2**64 - 1


def _check_int(
    value: object, name: str, *, optional: bool = False, upper: Optional[int] = None
) -> None:
    """An int (numpy ints too, not bool or float) in 0..=upper."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    n = value.__index__()
    if n < 0 or (upper is not None and n > upper):
        bound = "" if upper is None else f" and at most {upper}"
        raise ValueError(f"{name} must be at least 0{bound}, got {n}")


def _check_call(
    padding: Padding, max_length: Optional[int], pad_to_multiple_of: Optional[int]
) -> None:
    """Types of a batch call's own settings (the core resolves them)."""
    if padding == "max_length" and max_length is not None:
        _check_int(max_length, "max_length", upper=_U64_MAX)
    if pad_to_multiple_of is not None:
        _check_int(pad_to_multiple_of, "pad_to_multiple_of", upper=_U64_MAX)


def _ids(ids: Iterable[int]) -> list[int]:
    """Token ids as ints in 0..2^32-1 (numpy integer arrays taken whole)."""
    if isinstance(ids, (str, bytes)):
        raise TypeError("ids must be a sequence of int, not a str")
    array: Any = ids  # duck-typed: a numpy (or alike) integer array has dtype, size, min...
    dtype, size = getattr(array, "dtype", None), getattr(array, "size", 1)
    if dtype is not None and getattr(dtype, "kind", "") in "iu" and size:
        lo, hi = int(array.min()), int(array.max())
        if lo < 0 or hi > _U32_MAX:
            raise OverflowError(f"token id {lo if lo < 0 else hi} is outside 0..{_U32_MAX}")
        values: list[int] = array.tolist()
        return values
    out = []
    for i in ids:
        if not hasattr(i, "__index__"):
            raise TypeError(f"token ids must be int, got {type(i).__name__} {i!r}")
        n = i.__index__()
        if n < 0 or n > _U32_MAX:
            raise OverflowError(f"token id {n} is outside 0..{_U32_MAX}")
        out.append(n)
    return out


def _check_str(value: object, name: str) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be str, got {type(value).__name__}")


def _str_list(values: Iterable[str], name: str) -> list[str]:
    """A list of the values; the Rust side checks each is a str (TypeError)."""
    if isinstance(values, str):
        raise TypeError(f"{name} must be a sequence of str, not a str")
    return values if isinstance(values, list) else list(values)


def _truncation_spec(value: Any) -> Optional[TruncationSpec]:
    """Truncation from a pickle: a dict, or the (max_length, strategy) tuple
    that wpiece 0.1 pickles held."""
    if value is None:
        return None
    if isinstance(value, dict):
        return {
            "max_length": value["max_length"],
            "stride": value.get("stride", 0),
            "strategy": value["strategy"],
            "direction": value.get("direction", "right"),
        }
    max_length, strategy = value
    return {"max_length": max_length, "stride": 0, "strategy": strategy, "direction": "right"}


def _padding_spec(value: Any) -> Optional[PaddingSpec]:
    """Padding from a pickle: a dict, or the (length, pad_to_multiple_of,
    pad_id, pad_token, pad_type_id) tuple that wpiece 0.1 pickles held."""
    if value is None:
        return None
    direction = "right"
    if isinstance(value, dict):
        direction = value.get("direction", "right")
        keys = ("length", "pad_to_multiple_of", "pad_id", "pad_token", "pad_type_id")
        value = tuple(value[k] for k in keys)
    length, multiple, pad_id, pad_token, pad_type_id = value
    return {
        "length": length,
        "pad_to_multiple_of": multiple,
        "pad_id": pad_id,
        "pad_token": pad_token,
        "pad_type_id": pad_type_id,
        "direction": direction,
    }
