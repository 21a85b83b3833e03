"""Words given apart (HF's `is_pretokenized`, transformers'
`is_split_into_words`, as token classification feeds them): each word
normalized, pre-tokenized and encoded on its own, word ids the list's
indices, offsets from each word's start. Compared with HF field by field,
overflowing parts and every lookup included."""

from __future__ import annotations

import functools
import json
from typing import Any, Optional

import pytest
from hf_compare import _attempt, assert_encode_as_hf, assert_tree, set_padding, set_truncation
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken as HFAddedToken
from tokenizers import Tokenizer as HFTokenizer

import wpiece

from adversarial import ADVERSARIAL
from conftest import TOKENIZER_JSON, examples, hf_bert, wp_bert

Words = list[str]


# Words given apart, compared as texts are (lookups run to the longest word).
assert_words_as_hf = functools.partial(assert_encode_as_hf, pretokenized=True)


def sentences(lines: list[str], n: int) -> list[Words]:
    return [line.split() for line in lines[:n]]


def test_real_text_as_words_encodes_as_hf(pair_of_tokenizers: Any, en_lines: list[str]) -> None:
    hf, wp = pair_of_tokenizers
    inputs = sentences(en_lines, 120)
    for k, words in enumerate(inputs):
        assert_words_as_hf(hf, wp, words, lookups=k < 15)
        assert_words_as_hf(hf, wp, words, add=False)
        assert_words_as_hf(hf, wp, words, inputs[k - 1], lookups=k < 5)


def test_hostile_words_encode_as_hf() -> None:
    hf, wp = hf_bert(), wp_bert()
    words = [w for text in ADVERSARIAL for w in (text, *text.split(" "))]
    for k in range(0, len(words), 5):
        assert_words_as_hf(hf, wp, words[k : k + 5], lookups=True)
    for odd in ([], [""], ["", ""], [" "], ["a b c"], ["x" * 150, "y"], ["[CLS]", "[SEP]"]):
        assert_words_as_hf(hf, wp, odd, lookups=True)
        assert_words_as_hf(hf, wp, odd, odd)


@settings(max_examples=examples(150), deadline=None)
@given(
    st.lists(st.text(max_size=12), max_size=6),
    st.one_of(st.none(), st.lists(st.text(max_size=8), max_size=4)),
)
def test_any_words_encode_as_hf(words: Words, pair: Optional[Words]) -> None:
    hf, wp = _tokenizers()
    assert_words_as_hf(hf, wp, words, pair, lookups=True)


_CACHE: dict[str, Any] = {}


def _tokenizers() -> tuple[HFTokenizer, wpiece.Tokenizer]:
    if "bert" not in _CACHE:
        _CACHE["bert"] = (hf_bert(), wp_bert())
    return _CACHE["bert"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("strategy", ["longest_first", "only_first", "only_second"])
@pytest.mark.parametrize("direction", ["right", "left"])
def test_truncation_and_padding_of_words_as_hf(
    strategy: str, direction: str, en_lines: list[str]
) -> None:
    hf, wp = hf_bert(), wp_bert()
    inputs = sentences(en_lines, 30)
    for max_length, stride in ((9, 0), (12, 3), (40, 5)):
        if not set_truncation(
            hf, wp, max_length, stride=stride, strategy=strategy, direction=direction
        ):
            continue
        set_padding(hf, wp, length=None, pad_to_multiple_of=8, direction=direction)
        for k, words in enumerate(inputs):
            assert_words_as_hf(hf, wp, words, inputs[k - 1])
            if strategy != "only_second":
                assert_words_as_hf(hf, wp, words)
        batch = [(words, inputs[k - 1]) for k, words in enumerate(inputs)]
        expected, error = _attempt(lambda b=batch: hf.encode_batch(b, is_pretokenized=True))
        pairs = [p for _, p in batch]
        if error is not None:  # a first too short to cut only from
            with pytest.raises(ValueError):
                wp.encode_batch(inputs, pairs, is_pretokenized=True)
            continue
        got = wp.encode_batch(inputs, pairs, is_pretokenized=True)
        for k, (e, g) in enumerate(zip(expected, got)):
            assert_tree(e, g, ("batch", k, max_length, stride))


def test_batch_call_settings_match_hf_settings(en_lines: list[str]) -> None:
    # A call's own padding and truncation give what HF gives with them set.
    hf, wp = hf_bert(), wp_bert()
    inputs = sentences(en_lines, 40)
    hf.enable_truncation(16)
    hf.enable_padding()
    expected = hf.encode_batch(inputs, is_pretokenized=True)
    got = wp.encode_batch(
        inputs, is_pretokenized=True, padding=True, truncation=True, max_length=16
    )
    for k, (e, g) in enumerate(zip(expected, got)):
        assert_tree(e, g, k)
    assert wp.truncation is None and wp.padding is None  # the call's only
    assert [e.ids for e in wp.encode_batch(inputs[:3], is_pretokenized=True)] == [
        wp.encode(words, is_pretokenized=True).ids for words in inputs[:3]
    ]


def test_added_tokens_inside_words_as_hf() -> None:
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    spec["truncation"] = spec["padding"] = None
    hf, wp = HFTokenizer.from_str(json.dumps(spec)), wpiece.Tokenizer.from_str(json.dumps(spec))
    for tok in (hf, wp):
        tok.add_tokens(["new york", "zorp"])
        tok.add_special_tokens(["<ent>"])
    hf.add_tokens([HFAddedToken("xq", single_word=True, lstrip=True)])
    wp.add_tokens([wpiece.AddedToken("xq", single_word=True, lstrip=True)])
    for words in (
        ["I", "love", "New York"],
        ["zorpzorp", "<ent>", "a<ent>b", " xq", "axq", "xq "],
        ["[CLS]", "[MASK]x", "new", "york"],
    ):
        assert_words_as_hf(hf, wp, words, lookups=True)
        assert_words_as_hf(hf, wp, words, ["New York", "<ent>"])


def test_the_transformers_bridge_splits_words_alike(en_lines: list[str]) -> None:
    pytest.importorskip("transformers")
    wp = wp_bert()
    fast = wp.to_transformers()
    for words in sentences(en_lines, 20):
        got = fast(words, is_split_into_words=True)
        assert got["input_ids"] == wp.encode(words, is_pretokenized=True).ids
        assert got.word_ids() == wp.encode(words, is_pretokenized=True).word_ids


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda t: t.encode("a text", is_pretokenized=True), "text must be a list or tuple"),
        (lambda t: t.encode(["a"], "b", is_pretokenized=True), "pair must be a list or tuple"),
        (lambda t: t.encode(["a", 3], is_pretokenized=True), "item 1 of text is int"),
        (lambda t: t.encode(["a"]), "text must be str"),
        (lambda t: t.encode(["a"], is_pretokenized=1), "is_pretokenized"),
        (lambda t: t.encode_batch(["a b"], is_pretokenized=True), "item 0 of texts must be a list"),
        (lambda t: t.encode_batch([["a"], [None]], is_pretokenized=True), "item 0 of item 1"),
        (lambda t: t.encode_batch([["a"]], [["b"], ["c"]], is_pretokenized=True), "1 texts but 2"),
    ],
)
def test_words_of_the_wrong_kind_are_refused(call: Any, message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=message):
        call(wp_bert())


def test_numpy_arrays_of_words_are_taken_as_hf_takes_them() -> None:
    import numpy as np

    hf, wp = hf_bert(), wp_bert()
    words = np.array(["Hello,", "New", "York"])
    assert wp.encode(words, is_pretokenized=True).ids == hf.encode(words, is_pretokenized=True).ids
    got = wp.encode_batch([words, words[:1]], is_pretokenized=True)
    expected = hf.encode_batch([words, words[:1]], is_pretokenized=True)
    assert [e.ids for e in got] == [e.ids for e in expected]
