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


@pytest.mark.parametrize("family", FAMILIES)
def test_the_bridge_gives_each_family_its_own_cls_and_sep(family: str, tmp_path) -> None:
    """Roles as the post-processor frames an input: Funnel frames with <cls>
    and <sep> though <s> and </s> are special too (picked by name, <s> was
    its cls_token, so ids[0] != cls_token_id)."""
    vocab = tmp_path / "vocab.txt"
    extra = ["<cls>", "<sep>", "<s>", "</s>", "<pad>", "<unk>", "<mask>"]
    vocab.write_text(VOCAB.read_text(encoding="utf-8") + "\n".join(extra) + "\n")
    slow = getattr(transformers, family)(vocab_file=str(vocab))
    # As transformers saves it: the converted pipeline, its special tokens added.
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=convert_slow_tokenizer(slow), **slow.special_tokens_map
    )
    wp = wpiece.Tokenizer.from_str(fast.backend_tokenizer.to_str())
    bridged = wp.to_transformers()
    ids = bridged("hello")["input_ids"]
    assert (bridged.cls_token, bridged.sep_token) == (slow.cls_token, slow.sep_token)
    assert (ids[0], ids[-1]) == (bridged.cls_token_id, bridged.sep_token_id)
    assert ids == fast("hello")["input_ids"]


def test_the_bridge_takes_transformers_options_over_its_own() -> None:
    wp = wpiece.Tokenizer.from_file(VOCAB)
    wp.enable_truncation(16)
    names = ["input_ids", "attention_mask"]
    bridged = wp.to_transformers(model_max_length=512, model_input_names=names)
    assert bridged.model_max_length == 512
    assert sorted(bridged("a b")) == sorted(names)
    assert wp.to_transformers().model_max_length == 16
    with pytest.raises(TypeError, match="tokenizer_object"):
        wp.to_transformers(tokenizer_object=None)
