"""`RobertaProcessing` (MPNet's post-processor) exactly as HF applies it:
`<s> A </s>` and `<s> A </s></s> B </s>`, every type id 0, and with
`trim_offsets` the offsets of tokens whose strings start or end with spaces
trimmed as HF trims them. Compared with `tokenizers` on real, adversarial and
Hypothesis text, pairs, truncation with stride, batches and decode."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hf_compare import assert_encode_as_hf, set_truncation
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import processors

import wpiece

from adversarial import ADVERSARIAL
from conftest import TOKENIZER_JSON

REAL = [
    "Hello, world! Isn't this unaffable?",
    "the quick brown fox jumps over the lazy dog " * 3,
    "  leading and trailing  ",
    "",
    "a b",
]
# Tokens with spaces (whitespace or byte-level's Ġ) at their ends: only a
# pipeline without pre-tokenizer can produce them, and only they are trimmed.
SPACED = [" a", "a ", " b ", "\u0120a", "a\u0120", "  ", "\u3000x"]


def tokenizers(trim: bool, prefix: bool, spaced: bool) -> tuple[HFTokenizer, wpiece.Tokenizer]:
    d: dict[str, Any] = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    d["truncation"] = d["padding"] = None
    if spaced:
        d["pre_tokenizer"] = None
        vocab = d["model"]["vocab"]
        for token in SPACED:
            vocab.setdefault(token, len(vocab))
    hf = HFTokenizer.from_str(json.dumps(d))
    cls, sep = "[CLS]", "[SEP]"
    hf.post_processor = processors.RobertaProcessing(
        (sep, hf.token_to_id(sep)),
        (cls, hf.token_to_id(cls)),
        trim_offsets=trim,
        add_prefix_space=prefix,
    )
    return hf, wpiece.Tokenizer.from_str(hf.to_str())


SETTINGS = [(t, p, s) for t in (True, False) for p in (True, False) for s in (False, True)]


@pytest.mark.parametrize("trim, prefix, spaced", SETTINGS)
def test_roberta_processing_as_hf(trim: bool, prefix: bool, spaced: bool) -> None:
    hf, wp = tokenizers(trim, prefix, spaced)
    texts = [*REAL, *ADVERSARIAL, " a", "a  b", " b  a ", "\u0120a a\u0120"]
    for text in texts:
        for add in (True, False):
            assert_encode_as_hf(hf, wp, text, add=add, lookups=True)
            assert_encode_as_hf(hf, wp, text, " a b, pair ", add=add, lookups=True)
        ids = hf.encode(text, "pair").ids
        for skip in (True, False):
            assert wp.decode(ids, skip) == hf.decode(ids, skip_special_tokens=skip)
    batch = wp.encode_batch(texts)
    for text, got in zip(texts, batch):
        assert got.ids == hf.encode(text).ids and got.offsets == hf.encode(text).offsets
    flat, rows = wp.encode_batch_flat(texts)
    for i, text in enumerate(texts):
        assert flat[rows[i] : rows[i + 1]].tolist() == hf.encode(text).ids


@pytest.mark.parametrize("trim, prefix, spaced", SETTINGS[::3])
def test_roberta_truncation_with_stride_as_hf(trim: bool, prefix: bool, spaced: bool) -> None:
    hf, wp = tokenizers(trim, prefix, spaced)
    for max_length, stride in ((7, 1), (9, 2), (4, 0)):
        for strategy in ("longest_first", "only_first", "only_second"):
            if not set_truncation(hf, wp, max_length, stride=stride, strategy=strategy):
                continue
            # Without special tokens, HF zeroes the type ids of each
            # sequence but not of its overflowing parts (a pair's keep 1).
            for text in REAL[:2] + ADVERSARIAL[:5]:
                for add in (True, False):
                    assert_encode_as_hf(hf, wp, text, add=add)
                    assert_encode_as_hf(hf, wp, text, "the pair goes on and on here", add=add)
            hf.no_truncation()
            wp.no_truncation()


def test_roberta_survives_saving() -> None:
    hf, wp = tokenizers(False, True, True)
    saved = json.loads(wp.to_json())["post_processor"]
    assert saved == json.loads(hf.to_str())["post_processor"]
    again = HFTokenizer.from_str(wp.to_json())
    for text in REAL:
        assert again.encode(text, "b").ids == wp.encode(text, "b").ids


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("ab \u0120\u3000\t")), max_size=12),
    st.booleans(),
    st.booleans(),
)
def test_trimmed_offsets_on_any_spaced_text(text: str, prefix: bool, pair: bool) -> None:
    hf, wp = _spaced(prefix)
    assert_encode_as_hf(hf, wp, text, "b a " if pair else None, lookups=True)


_CACHE: dict[bool, tuple[HFTokenizer, wpiece.Tokenizer]] = {}


def _spaced(prefix: bool) -> tuple[HFTokenizer, wpiece.Tokenizer]:
    if prefix not in _CACHE:
        _CACHE[prefix] = tokenizers(True, prefix, True)
    return _CACHE[prefix]
