"""The tokenizer.json files transformers' slow-to-fast converters write for
every WordPiece model family in its converter table, built offline from the
test vocab: each loads and encodes exactly as `tokenizers` does (every field
of single inputs and pairs, with and without special tokens) and decodes
alike."""

from __future__ import annotations

import pytest
import transformers
from hf_compare import assert_encode_as_hf
from tokenizers import Tokenizer as HFTokenizer
from transformers.convert_slow_tokenizer import SLOW_TO_FAST_CONVERTERS, convert_slow_tokenizer

import wpiece

from adversarial import ADVERSARIAL
from conftest import VOCAB_TXT

VOCAB = VOCAB_TXT
# The converters of WordPiece models (the others convert BPE, Unigram or
# WordLevel models, which wpiece refuses by name).
WORDPIECE_CONVERTERS = {"BertConverter", "FunnelConverter", "MPNetConverter", "SplinterConverter"}
FAMILIES = sorted(
    name
    for name, converter in SLOW_TO_FAST_CONVERTERS.items()
    if converter.__name__ in WORDPIECE_CONVERTERS and hasattr(transformers, name)
)
TEXTS = ["Hello, world! Isn't this unaffable?", "The Quick brown fox.", "", *ADVERSARIAL]


def test_the_table_holds_the_wordpiece_families() -> None:
    assert {"BertTokenizer", "DistilBertTokenizer", "MPNetTokenizer", "FunnelTokenizer"} <= set(
        FAMILIES
    )


@pytest.mark.parametrize("family", FAMILIES)
def test_converted_tokenizers_encode_as_hf(family: str) -> None:
    slow = getattr(transformers, family)(vocab_file=str(VOCAB))
    hf: HFTokenizer = convert_slow_tokenizer(slow)
    wp = wpiece.Tokenizer.from_str(hf.to_str())
    for text in TEXTS:
        for add in (True, False):
            assert_encode_as_hf(hf, wp, text, add=add)
            assert_encode_as_hf(hf, wp, text, "and a pair", add=add)
        ids = hf.encode(text, "and a pair").ids
        for skip in (True, False):
            assert wp.decode(ids, skip) == hf.decode(ids, skip_special_tokens=skip), text
