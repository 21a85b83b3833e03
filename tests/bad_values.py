"""The hostile values of test_messages.py, by kind of parameter: each kind
(bool, str, int in a range, list of str, paths, ids...) lists what it must
refuse, and what the refusal must say besides the argument's name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import pyarrow as pa

import wpiece

from conftest import VOCAB_TXT

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1
MAX_THREADS = 1024


# ----- hostile values, by kind of parameter ----------------------------------


@dataclass(frozen=True)
class Bad:
    """A hostile value and what its error must say besides the argument's
    name: the index of the bad item, the accepted range."""

    label: str
    value: Any
    item: Optional[int] = None
    range: tuple[str, ...] = ()


def bools(optional: bool = False) -> list[Bad]:
    values = [Bad("str", "yes"), Bad("int1", 1), Bad("int0", 0), Bad("float", 1.0)]
    values += [Bad("list", [True]), Bad("object", object())]
    return values if optional else [Bad("None", None), *values]


def strs(optional: bool = False) -> list[Bad]:
    values = [Bad("bytes", b"x"), Bad("int", 3), Bad("list", ["x"]), Bad("object", object())]
    return values if optional else [Bad("None", None), *values]


def ints(lo: int = 0, hi: int = U64_MAX, optional: bool = False) -> list[Bad]:
    """An int in lo..=hi: the message states both ends when a value is out."""
    bounds = (f"at least {lo}", f"at most {hi}")
    values = [
        Bad("str", "3"),
        Bad("float", 1.5),
        Bad("bool", True),
        Bad("list", [1]),
        Bad("object", object()),
        Bad("-1", -1, range=bounds),
        Bad("2**64", 2**64, range=bounds),
        Bad("10**30", 10**30, range=bounds),
    ]
    if lo - 1 != -1:
        values.append(Bad(f"{lo - 1}", lo - 1, range=bounds))
    if hi + 1 != 2**64:
        values.append(Bad(f"{hi + 1}", hi + 1, range=bounds))
    return values if optional else [Bad("None", None), *values]


def threads() -> list[Bad]:
    return ints(1, MAX_THREADS, optional=True)


def str_list(optional: bool = False) -> list[Bad]:
    """A list of str: one str, a non-str item at index k, what is not a list."""
    values = [
        Bad("str", "abc"),
        Bad("bytes", b"abc"),
        Bad("item1-int", ["a", 3], item=1),
        Bad("item2-None", ["a", "b", None], item=2),
        Bad("item0-bytes", [b"a"], item=0),
        Bad("dict", {"a": 1, 3: 2}, item=1),  # a dict is its keys
        Bad("int", 3),
        Bad("object", object()),
    ]
    return values if optional else [Bad("None", None), *values]


def corpus() -> list[Bad]:
    """Documents: an iterable of str (one str is a mistake)."""
    return str_list()


def paths() -> list[Bad]:
    items = [Bad("item1-int", [str(VOCAB_TXT), 3], item=1), Bad("item0-None", [None], item=0)]
    return [*path(), *items]


def path() -> list[Bad]:
    return [Bad("None", None), Bad("int", 3), Bad("bytes", b"x.txt"), Bad("object", object())]


# A tokenizer to extend, or the path of one (None: train afresh).
INITIAL = [Bad("int", 3), Bad("bytes", b"x.txt"), Bad("dict", {"a": 1}), Bad("obj", object())]
PIPELINES = {"initial": INITIAL, "tokenizer": INITIAL}  # extend one, or train through one


def ids() -> list[Bad]:
    """Token ids: ints in 0..2^32-1, each bad one named by its index."""
    span = (f"0..{U32_MAX}",)
    return [
        Bad("None", None),
        Bad("str", "abc"),
        Bad("int", 3),
        Bad("object", object()),
        Bad("item1-str", [1, "x"], item=1),
        Bad("item1-float", [1, 1.0], item=1),
        Bad("item1-bool", [1, True], item=1),
        Bad("item1-None", [1, None], item=1),
        Bad("item1-negative", [1, -1], item=1, range=span),
        Bad("item1-2**32", [1, 2**32], item=1, range=span),
        Bad("item1-2**64", [1, 2**64], item=1, range=span),
        Bad("item1-10**30", [1, 10**30], item=1, range=span),
        Bad("numpy-negative", np.array([1, -1]), item=1, range=span),
        Bad("numpy-big", np.array([1, 2**40]), item=1, range=span),
    ]


def one_id() -> list[Bad]:
    span = (f"0..{U32_MAX}",)
    return [
        Bad("None", None),
        Bad("str", "1"),
        Bad("float", 1.0),
        Bad("bool", True),
        Bad("-1", -1, range=span),
        Bad("2**32", 2**32, range=span),
        Bad("2**64", 2**64, range=span),
        Bad("10**30", 10**30, range=span),
    ]


def arrays() -> list[Bad]:
    return [
        Bad("None", None),
        Bad("list", ["a"]),
        Bad("str", "a"),
        Bad("int-array", pa.array([1, 2])),
        Bad("object", object()),
    ]


def added_tokens() -> list[Bad]:
    return [
        Bad("None", None),
        Bad("str", "one"),
        Bad("one-AddedToken", wpiece.AddedToken("<x>")),
        Bad("item1-int", ["x", 3], item=1),
        Bad("item0-bytes", [b"x"], item=0),
        Bad("object", object()),
    ]
