"""Comparing wpiece with HF `tokenizers`: every field of an encoding and of
its overflowing parts, every lookup at every position, and the settings and
encode calls both must agree on (or both refuse). Shared by the parity suites."""

from __future__ import annotations

from typing import Any, Callable, Optional

import pytest
from tokenizers import Tokenizer as HFTokenizer

import wpiece

FIELDS = (
    "ids",
    "tokens",
    "offsets",
    "type_ids",
    "special_tokens_mask",
    "attention_mask",
    "word_ids",
    "sequence_ids",
    "n_sequences",
)
TOKEN_METHODS = ("token_to_chars", "token_to_word", "token_to_sequence")
CHAR_METHODS = ("char_to_token", "char_to_word")
WORD_METHODS = ("word_to_tokens", "word_to_chars")
# None: the default sequence_index; 2: no such sequence (HF then looks at all tokens).
SEQUENCE_INDICES = (None, 0, 1, 2)


def assert_fields(h: Any, w: Any, where: object) -> None:
    for name in FIELDS:
        assert getattr(w, name) == getattr(h, name), (name, where)
    assert len(w) == len(h), where


def assert_tree(h: Any, w: Any, where: object, path: tuple[int, ...] = ()) -> None:
    """Every field of the encoding and of its overflowing parts, recursively."""
    assert_fields(h, w, (where, path))
    h_over, w_over = h.overflowing, w.overflowing
    assert len(w_over) == len(h_over), ("overflowing", where, path)
    for i, (ho, wo) in enumerate(zip(h_over, w_over)):
        assert_tree(ho, wo, where, (*path, i))


def _call(enc: Any, method: str, *args: Any) -> Any:
    """The method's result, or the name of the exception it raised."""
    try:
        return getattr(enc, method)(*args)
    except Exception as exc:  # HF raises OverflowError for negative or huge ints
        return type(exc).__name__


def lookup_table(
    enc: Any, n_tokens: int, n_chars: int, n_words: int, extra: tuple[int, ...] = ()
) -> list[tuple[Any, ...]]:
    """Every lookup method at every position: rows of (method, args, result)."""
    rows: list[tuple[Any, ...]] = []
    for t in (*range(n_tokens), *extra):
        rows.extend((m, t, _call(enc, m, t)) for m in TOKEN_METHODS)
    for s in SEQUENCE_INDICES:
        seq = () if s is None else (s,)
        for c in (*range(n_chars), *extra):
            rows.extend((m, c, s, _call(enc, m, c, *seq)) for m in CHAR_METHODS)
        for word in (*range(n_words), *extra):
            rows.extend((m, word, s, _call(enc, m, word, *seq)) for m in WORD_METHODS)
    return rows


def assert_lookups(
    h: Any, w: Any, n_chars: int, where: object, extra: tuple[int, ...] = ()
) -> None:
    """Token positions 0..len+1, char positions 0..n_chars+1, word indices
    0..max word id+2, each sequence index; sizes taken from HF's encoding."""
    words = [x for x in h.word_ids if x is not None]
    n_words = (max(words) + 3) if words else 2
    sizes = (len(h) + 2, n_chars + 2, n_words)
    assert lookup_table(w, *sizes, extra) == lookup_table(h, *sizes, extra), where


def _attempt(fn: Callable[[], Any]) -> tuple[Any, Optional[BaseException]]:
    """fn's result, or the exception it raised: HF panics (pyo3's
    PanicException derives from BaseException) where it cannot truncate."""
    try:
        return fn(), None
    except BaseException as exc:
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return None, exc


def n_added(hf: HFTokenizer, pair: bool, add_special_tokens: bool) -> int:
    """The special tokens HF's post-processor adds to this input."""
    if not add_special_tokens or hf.post_processor is None:
        return 0
    return int(hf.post_processor.num_special_tokens_to_add(pair))


def wraps_in_hf(hf: HFTokenizer, pair: bool, add_special_tokens: bool) -> bool:
    """HF computes max_length - special tokens unsigned: when it would go
    negative it wraps and skips truncation; wpiece refuses (ValueError)."""
    trunc = hf.truncation
    return trunc is not None and trunc["max_length"] < n_added(hf, pair, add_special_tokens)


def set_truncation(hf: HFTokenizer, wp: wpiece.Tokenizer, max_length: int, **kw: Any) -> bool:
    """The same truncation on both, or False when HF refuses it (a stride over
    max_length less the special tokens): wpiece must refuse it too, as it is
    set."""
    try:
        hf.enable_truncation(max_length, **kw)
    except ValueError:
        with pytest.raises(ValueError):
            wp.enable_truncation(max_length, **kw)
        assert wp.truncation == hf.truncation  # neither changed
        return False
    wp.enable_truncation(max_length, **kw)
    assert wp.truncation == hf.truncation
    return True


def set_padding(hf: HFTokenizer, wp: wpiece.Tokenizer, **kw: Any) -> None:
    """The same padding on both, each with its own defaults."""
    hf.enable_padding(**kw)
    wp.enable_padding(**kw)


def assert_encode_as_hf(
    hf: HFTokenizer,
    wp: wpiece.Tokenizer,
    text: Any,
    pair: Optional[Any] = None,
    add: bool = True,
    lookups: bool = False,
    pretokenized: bool = False,
) -> None:
    """``text`` and ``pair``: strs, or lists of words with ``pretokenized``
    (char positions of the lookups then run to the longest word)."""
    where = (text, pair, add, hf.truncation)
    options = {"add_special_tokens": add, "is_pretokenized": pretokenized}
    if not pretokenized:  # wpiece's default; HF's own
        del options["is_pretokenized"]
    if wraps_in_hf(hf, pair is not None, add):
        with pytest.raises(ValueError):
            wp.encode(text, pair, **options)
        return
    expected, error = _attempt(lambda: hf.encode(text, pair, **options))
    if error is not None:
        with pytest.raises(ValueError):
            wp.encode(text, pair, **options)
        return
    got = wp.encode(text, pair, **options)
    assert_tree(expected, got, where)
    if lookups:
        pieces = [*text, *(pair or [])] if pretokenized else [text, pair or ""]
        n_chars = max((len(p) for p in pieces), default=0)
        assert_lookups(expected, got, n_chars, where)
        for h, w in zip(expected.overflowing, got.overflowing):
            assert_lookups(h, w, n_chars, (where, "overflowing"))
