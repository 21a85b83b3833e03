"""The arguments of the public API: their types and the checks that turn a
bad one into a clear ``TypeError`` or ``ValueError`` before the core sees it.
A leaf module: every other module may use it."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Optional, Union

from . import _core
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


_U32_MAX = 2**32 - 1
_U64_MAX = 2**64 - 1
_MAX_THREADS = 1024
"""The most worker threads a call may ask for (the core's limit)."""


def _kind(value: object) -> str:
    return type(value).__name__


def _is_bool(value: object) -> bool:
    """A bool, or a numpy bool (which the core takes as one)."""
    kind = type(value)
    return isinstance(value, bool) or (
        kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")
    )


def _check_bool(value: object, name: str, *, optional: bool = False) -> None:
    """True or False (or None when ``optional``); 0, 1 and "yes" are refused."""
    if (value is None and optional) or _is_bool(value):
        return
    what = "a bool or None" if optional else "a bool"
    raise TypeError(f"{name} must be {what}, got {_kind(value)}")


def _flag(value: object, name: str) -> bool:
    """``value``, checked to be a bool."""
    _check_bool(value, name)
    return bool(value)


def _check_bools(**flags: object) -> None:
    """Each keyword is a flag that must be a bool."""
    for name, value in flags.items():
        _check_bool(value, name)


def _check_int(
    value: object,
    name: str,
    *,
    optional: bool = False,
    lower: int = 0,
    upper: Optional[int] = None,
) -> None:
    """An int (numpy ints too, not bool or float) in lower..=upper."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        what = "an int or None" if optional else "an int"
        raise TypeError(f"{name} must be {what}, got {_kind(value)}")
    n = value.__index__()
    if n < lower or (upper is not None and n > upper):
        bound = "" if upper is None else f" and at most {upper}"
        raise ValueError(f"{name} must be at least {lower}{bound}, got {n}")


def _check_threads(num_threads: object) -> None:
    """None (the default pool) or a thread count the core accepts."""
    _check_int(num_threads, "num_threads", optional=True, lower=1, upper=_MAX_THREADS)


def _check_str(value: object, name: str, *, optional: bool = False) -> None:
    """A str (or None when ``optional``); bytes are refused."""
    if (value is None and optional) or isinstance(value, str):
        return
    what = "str or None" if optional else "str"
    raise TypeError(f"{name} must be {what}, got {_kind(value)}")


def _text(value: object, name: str) -> str:
    """``value``, checked to be a str."""
    _check_str(value, name)
    return str(value)


def _iterate(values: object, name: str, what: str) -> Iterable[Any]:
    """``values`` as an iterable; a str, bytes or a non-iterable is refused
    naming ``name``, which must be ``what``."""
    if isinstance(values, (str, bytes)):
        one = "a str" if isinstance(values, str) else "bytes"
        raise TypeError(f"{name} must be {what}, not {one}")
    try:
        iter(values)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{name} must be {what}, got {_kind(values)}") from None
    return values  # type: ignore[return-value]


def _str_list(values: Iterable[str], name: str) -> list[str]:
    """A list of the values; the Rust side checks each is a str (TypeError
    naming the item's index)."""
    if isinstance(values, list):
        return values
    return list(_iterate(values, name, "a sequence of str"))


def _str_items(values: Iterable[str], name: str) -> list[str]:
    """A list of the values, each checked to be a str here."""
    items = list(_iterate(values, name, "a sequence of str"))
    for k, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"item {k} of {name} is {_kind(item)}, not str")
    return items


def _batch_texts(
    texts: Iterable[Any], pairs: Optional[Iterable[str]]
) -> tuple[list[str], Optional[list[str]]]:
    """The texts and pairs of a batch call as lists (the core checks each
    item, naming its index). Pairs come apart, or as HF takes them: each
    item a ``(text, pair)`` tuple or two-item list."""
    text_list = _str_list(texts, "texts")
    if pairs is None and text_list and isinstance(text_list[0], (tuple, list)):
        return _split_pairs(text_list, words=False)
    return text_list, None if pairs is None else _str_list(pairs, "pairs")


def _split_pairs(items: list[Any], words: bool) -> tuple[list[Any], list[Any]]:
    """The first and second sequences of a batch of ``(text, pair)`` items
    (``words``: each a list of words)."""
    firsts, seconds = [], []
    for k, item in enumerate(items):
        is_pair = isinstance(item, (tuple, list)) and len(item) == 2
        if not (_is_word_pair(item) if words else is_pair):
            if k == 0:  # the first one made it a batch of pairs
                raise TypeError(
                    f"item 0 of texts is a {type(item).__name__} of {len(item)} items: give a "
                    "str, or a (text, pair) tuple of two"
                )
            raise TypeError(
                f"item {k} of texts is {_kind(item)}, where item 0 is a (text, pair) tuple: a "
                "batch of pairs holds one in every item (encode single texts in another call)"
            )
        firsts.append(item[0])
        seconds.append(item[1])
    return firsts, seconds


def _words(words: object, name: str) -> list[str]:
    """One input given as words (``is_pretokenized``): a list, tuple or
    1-d numpy array of str, as HF takes it (a str would be its characters)."""
    if type(words).__module__ == "numpy" and getattr(words, "ndim", None) == 1:
        words = words.tolist()  # type: ignore[attr-defined]
    if not isinstance(words, (list, tuple)):
        raise TypeError(
            f"{name} must be a list or tuple of str with is_pretokenized=True, not {_kind(words)}"
        )
    return _str_items(words, name)


def _batch_words(
    texts: Iterable[object], pairs: Optional[Iterable[object]]
) -> tuple[list[list[str]], Optional[list[list[str]]]]:
    """The inputs and pairs of a batch given as words, each a list of str."""

    def lists(items: list[object], name: str) -> list[list[str]]:
        return [_words(item, f"item {k} of {name}") for k, item in enumerate(items)]

    items = list(_iterate(texts, "texts", "a sequence of lists of str"))
    if pairs is None and items and _is_word_pair(items[0]):
        firsts, seconds = _split_pairs(items, words=True)
        return lists(firsts, "texts"), lists(seconds, "pairs")
    if pairs is None:
        return lists(items, "texts"), None
    pair_items = list(_iterate(pairs, "pairs", "a sequence of lists of str"))
    return lists(items, "texts"), lists(pair_items, "pairs")


def _is_word_pair(item: object) -> bool:
    """Whether a batch item given as words is HF's ``(words, pair_words)``."""
    return (
        isinstance(item, (tuple, list))
        and len(item) == 2
        and all(isinstance(x, (tuple, list)) for x in item)
    )


def _check_call(
    truncation: object, max_length: object, num_threads: object, pad_to_multiple_of: object
) -> None:
    """Types of a batch call's own settings (the core resolves them, and
    checks ``padding``'s value, naming it)."""
    _check_bool(truncation, "truncation", optional=True)
    _check_int(max_length, "max_length", optional=True, upper=_U64_MAX)
    _check_int(pad_to_multiple_of, "pad_to_multiple_of", optional=True, upper=_U64_MAX)
    _check_threads(num_threads)


def _check_files_call(
    separator: object,
    jsonl_field: object,
    num_threads: object,
    add_special_tokens: object,
    mmap: object,
) -> None:
    """The settings of ``Tokenizer.encode_files``."""
    _check_str(separator, "separator")
    _check_str(jsonl_field, "jsonl_field", optional=True)
    _check_threads(num_threads)
    _check_bools(add_special_tokens=add_special_tokens, mmap=mmap)


_OPTION_CHECKS: dict[str, Any] = {
    **dict.fromkeys(
        ("unk_token", "continuing_subword_prefix", "end_of_word_suffix")
        + ("unknown", "pre_tokenizer", "score"),
        _check_str,
    ),
    **dict.fromkeys(
        ("normalize", "lowercase", "clean_text", "handle_chinese_chars", "show_progress", "fit"),
        _check_bool,
    ),
    "strip_accents": lambda v, n: _check_bool(v, n, optional=True),
    "max_input_chars_per_word": lambda v, n: _check_int(v, n, upper=_U64_MAX),
    "vocab_size": lambda v, n: _check_int(v, n, lower=1, upper=_U64_MAX),
    "min_frequency": lambda v, n: _check_int(v, n, upper=_U64_MAX),
    "limit_alphabet": lambda v, n: _check_int(v, n, optional=True, upper=_U64_MAX),
}
"""How each tokenizer, counting and training option is checked (by name)."""


def _check_options(options: Mapping[str, object]) -> None:
    """Checks the type (and range) of each option that ``_OPTION_CHECKS``
    names; the core checks the values of the named choices (``unknown``,
    ``pre_tokenizer``, ``score``) and says which are allowed."""
    for name, value in options.items():
        check = _OPTION_CHECKS.get(name)
        if check is not None:
            check(value, name)


def _checked_options(**options: Any) -> dict[str, Any]:
    """The options, each checked (see :func:`_check_options`)."""
    _check_options(options)
    return options


def _special_tokens(special_tokens: Optional[Iterable[str]]) -> list[str]:
    """The special tokens of a tokenizer (BERT's when None), each a str."""
    if special_tokens is None:
        return list(_core.BERT_SPECIAL_TOKENS)
    return _str_items(special_tokens, "special_tokens")


def _vocab_list(vocab: Union[Sequence[str], Mapping[str, int]]) -> list[str]:
    """The tokens in id order, from a list or a dict token -> id (the core
    checks each token is a str, naming the item)."""
    what = "a list of tokens or a dict token -> id"
    if isinstance(vocab, Mapping):
        for token, i in vocab.items():
            if isinstance(i, bool) or not hasattr(i, "__index__"):
                raise TypeError(f"vocab ids must be int, got {_kind(i)} for token {token!r}")
        ordered = sorted(vocab.items(), key=lambda kv: kv[1])
        if [i for _, i in ordered] != list(range(len(ordered))):
            raise ValueError("vocab ids must be 0..n-1 without gaps")
        return [t for t, _ in ordered]
    return list(_iterate(vocab, "vocab", what))


def _ids(ids: Iterable[int], name: str = "ids") -> list[int]:
    """Token ids as ints in 0..2^32-1 (numpy integer arrays taken whole)."""
    ids = _iterate(ids, name, "a sequence of int")
    array: Any = ids  # duck-typed: a numpy (or alike) integer array has dtype, size, min...
    dtype, size = getattr(array, "dtype", None), getattr(array, "size", 1)
    if dtype is not None and getattr(dtype, "kind", "") in "iu" and size:
        lo, hi = int(array.min()), int(array.max())
        if lo < 0 or hi > _U32_MAX:
            k = int(array.argmin() if lo < 0 else array.argmax())
            raise OverflowError(
                f"item {k} of {name}: token id {lo if lo < 0 else hi} is outside 0..{_U32_MAX}"
            )
        values: list[int] = array.tolist()
        return values
    out = []
    for k, i in enumerate(ids):
        if isinstance(i, bool) or not hasattr(i, "__index__"):
            raise TypeError(f"item {k} of {name}: token ids must be int, got {_kind(i)} {i!r}")
        n = i.__index__()
        if n < 0 or n > _U32_MAX:
            raise OverflowError(f"item {k} of {name}: token id {n} is outside 0..{_U32_MAX}")
        out.append(n)
    return out


def _id_lists(sequences: Iterable[Iterable[int]]) -> list[list[int]]:
    """Each sequence of ids as :func:`_ids` takes it, named by its index."""
    items = _iterate(sequences, "sequences", "a sequence of id sequences")
    return [_ids(ids, f"sequences[{k}]") for k, ids in enumerate(items)]


def _check_id(id: object) -> int:
    """One token id: an int in 0..2^32-1."""
    if isinstance(id, bool) or not hasattr(id, "__index__"):
        raise TypeError(f"id must be an int, got {_kind(id)} {id!r}")
    n: int = id.__index__()
    if n < 0 or n > _U32_MAX:
        raise OverflowError(f"id {n} is outside 0..{_U32_MAX}")
    return n


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
