"""Every code point through the steps whose answers come from Unicode tables,
against HF `tokenizers`: the tables must be HF's, not whichever a crate or
Rust's standard library has (a newer Unicode assigns and decomposes chars an
older one does not know)."""

from __future__ import annotations

import numpy as np
from tokenizers import AddedToken as HFAddedToken
from tokenizers import Tokenizer as HFTokenizer

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
    expected: dict[str, int] = {}
    for c in CHARS:
        for word, _ in hf.pre_tokenizer.pre_tokenize_str(hf.normalizer.normalize_str(c)):
            expected[word] = expected.get(word, 0) + 1
    counted = wpiece.count_words(CHARS)
    assert counted.items() == list(expected.items())
    assert "\U000105c9" in expected  # kept whole, as HF keeps it


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
