"""Every code point through the steps whose answers come from Unicode tables,
against HF `tokenizers`: the tables must be HF's, not whichever a crate or
Rust's standard library has (a newer Unicode assigns and decomposes chars an
older one does not know)."""

from __future__ import annotations

import numpy as np
import pytest
from tokenizers import AddedToken as HFAddedToken
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import normalizers as hf_norm
from tokenizers import pre_tokenizers as hf_pre

import wpiece

from conftest import TOKENIZER_JSON

# Every scalar value past ASCII in the planes with assigned chars, and tags.
CHARS = [chr(c) for c in [*range(0x80, 0xD800), *range(0xE000, 0x40000), *range(0xE0000, 0xE1000)]]


def test_bert_normalizer_and_pre_tokenizer_give_hf_words_for_every_char() -> None:
    """The BERT normalizer strips accents through HF's decomposition tables
    (Unicode 9): the fused one-pass normalizer used Unicode 16's, which
    decompose 11 chars HF keeps whole (U+105C9, U+11383, U+16D68...), so a
    vocab holding their parts encoded them differently. Words are compared
    through counting, which gives them as the encoder splits them."""
    hf = HFTokenizer.from_file(str(TOKENIZER_JSON))
    expected = hf_words(hf, CHARS)
    assert wpiece.count_words(CHARS).items() == expected
    assert ("\U000105c9", 1) in expected  # kept whole, as HF keeps it


def hf_words(hf: HFTokenizer, texts: list[str]) -> list[tuple[str, int]]:
    """The words HF's normalizer and pre-tokenizer make of ``texts``, with
    their counts, in first-appearance order (as ``wpiece.count_words``)."""
    counts: dict[str, int] = {}
    for text in texts:
        for word, _ in hf.pre_tokenizer.pre_tokenize_str(hf.normalizer.normalize_str(text)):
            counts[word] = counts.get(word, 0) + 1
    return list(counts.items())


PIPELINES = {
    "lowercase, whitespace split, punctuation, digits": lambda: (
        hf_norm.Lowercase(),
        hf_pre.Sequence(
            [hf_pre.WhitespaceSplit(), hf_pre.Punctuation(), hf_pre.Digits(individual_digits=False)]
        ),
    ),
    "nfkc, whitespace": lambda: (hf_norm.NFKC(), hf_pre.Whitespace()),
    "nfd, strip accents, single digits": lambda: (
        hf_norm.Sequence([hf_norm.NFD(), hf_norm.StripAccents()]),
        hf_pre.Sequence([hf_pre.WhitespaceSplit(), hf_pre.Digits(individual_digits=True)]),
    ),
    "nfkd, lowercase, bert": lambda: (
        hf_norm.Sequence([hf_norm.NFKD(), hf_norm.Lowercase()]),
        hf_pre.BertPreTokenizer(),
    ),
}


@pytest.mark.parametrize("name", PIPELINES)
def test_other_pipelines_give_hf_words_for_every_char(name: str) -> None:
    """Lowercasing (Rust's own tables, on both sides), the Unicode forms
    (HF's crate), accents, whitespace, punctuation and digits: each char
    between a letter, a digit and a space."""
    hf = HFTokenizer.from_file(str(TOKENIZER_JSON))
    hf.normalizer, hf.pre_tokenizer = PIPELINES[name]()
    wp = wpiece.Tokenizer.from_str(hf.to_str())
    texts = ["a" + c + "1" + c + " " + c for c in CHARS]
    assert wpiece.count_words(texts, tokenizer=wp).items() == hf_words(hf, texts)


def test_single_word_tokens_see_word_chars_as_hf_does() -> None:
    """A `single_word` token matches only between non-word chars, `\\w` of
    HF's regex crate (Unicode 16.0): Rust's `is_alphabetic` (a newer
    Unicode) and the category crate's marks and digits (an older one)
    disagreed on about 5,000 chars (U+10D31 Hanifi Rohingya digit, U+07FD,
    U+0C5C, U+A7CE...). Each char right after and right before the token."""
    hf = HFTokenizer.from_file(str(TOKENIZER_JSON))
    hf.no_truncation()
    hf.no_padding()
    hf.add_tokens([HFAddedToken("hello", single_word=True, normalized=False)])
    wp = wpiece.Tokenizer.from_str(hf.to_str())
    texts = ["hello" + c for c in CHARS] + [c + "hello" for c in CHARS]
    expected = hf.encode_batch(texts, add_special_tokens=False)
    ids, rows = wp.encode_batch_flat(texts, add_special_tokens=False)
    assert np.array_equal(rows, np.cumsum([0] + [len(e.ids) for e in expected]))
    assert np.array_equal(ids, np.concatenate([e.ids for e in expected]))
    hello = hf.token_to_id("hello")
    assert (ids == hello).sum() > len(CHARS) // 2  # the token is matched, often
