"""A tokenizer.json without some component means what it means in HF: no
normalizer is the identity, no pre-tokenizer makes the whole text one word,
no post-processor adds no special tokens, no decoder joins the tokens with
spaces. What HF's own trainer saves (the quicktour's `Tokenizer(WordPiece())`
with a pre-tokenizer and nothing else) loads and encodes as HF does. The
loader refuses what HF refuses: another `version`, a key it does not know, a
missing model."""

from __future__ import annotations

import json
from typing import Any, Callable

import pyarrow as pa
import pytest
from hf_compare import assert_encode_as_hf
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, trainers
from tokenizers import pre_tokenizers as pre

import wpiece

from adversarial import ADVERSARIAL
from conftest import TOKENIZER_JSON

REAL = [
    "Hello, world! Isn't this unaffable?",
    "The Quick brown fox -- jumps over 12,345 lazy dogs.",
    "  leading and trailing  ",
    "naïve café Ünïcödé ß",
    "中文字符 and 日本語",
    "",
    " ",
    "tab\tnew\nline",
]


def bert_json() -> dict[str, Any]:
    d: dict[str, Any] = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    d["truncation"] = None
    d["padding"] = None
    return d


def without(*parts: str) -> dict[str, Any]:
    d = bert_json()
    for part in parts:
        d[part] = None
    return d


def both(d: dict[str, Any]) -> tuple[HFTokenizer, wpiece.Tokenizer]:
    text = json.dumps(d)
    return HFTokenizer.from_str(text), wpiece.Tokenizer.from_str(text)


CASES: dict[str, Callable[[], dict[str, Any]]] = {
    "no normalizer": lambda: without("normalizer"),
    "no pre-tokenizer": lambda: without("pre_tokenizer"),
    "no post-processor": lambda: without("post_processor"),
    "no decoder": lambda: without("decoder"),
    "nothing but the model": lambda: without(
        "normalizer", "pre_tokenizer", "post_processor", "decoder"
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_missing_components_encode_and_decode_as_hf(case: str) -> None:
    hf, wp = both(CASES[case]())
    for text in [*REAL, *ADVERSARIAL]:
        for add in (True, False):
            assert_encode_as_hf(hf, wp, text, add=add, lookups=True)
            assert_encode_as_hf(hf, wp, text, "a pair, here", add=add)
        ids = hf.encode(text).ids
        for skip in (True, False):
            assert wp.decode(ids, skip_special_tokens=skip) == hf.decode(
                ids, skip_special_tokens=skip
            ), (case, text, skip)


@pytest.mark.parametrize("case", sorted(CASES))
def test_missing_components_survive_saving(case: str) -> None:
    _, wp = both(CASES[case]())
    saved = json.loads(wp.to_json())
    for part in ("normalizer", "pre_tokenizer", "post_processor", "decoder"):
        if CASES[case]()[part] is None:
            assert saved[part] is None, (case, part)
    again = HFTokenizer.from_str(wp.to_json())
    for text in REAL:
        assert wp.encode(text).ids == again.encode(text).ids, (case, text)
        assert wp.decode(wp.encode(text).ids) == again.decode(again.encode(text).ids)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40))
def test_no_pre_tokenizer_and_no_decoder_on_any_text(text: str) -> None:
    hf, wp = _nothing_but_the_model()
    assert_encode_as_hf(hf, wp, text, lookups=True)
    ids = hf.encode(text).ids
    assert wp.decode(ids) == hf.decode(ids)


def _nothing_but_the_model() -> tuple[HFTokenizer, wpiece.Tokenizer]:
    return both(CASES["nothing but the model"]())


def test_without_a_decoder_there_is_no_cleanup_to_turn_on() -> None:
    # decoder_cleanup said True for such a file, and setting it did nothing.
    hf, wp = both(without("decoder"))
    assert wp.decoder_cleanup is False
    with pytest.raises(ValueError, match="no decoder"):
        wp.decoder_cleanup = True
    wp.decoder_cleanup = False
    ids = hf.encode("hello, world.").ids
    assert wp.decode(ids) == hf.decode(ids) == "hello , world ."
    assert json.loads(wp.to_json())["decoder"] is None
    _, with_decoder = both(bert_json())
    assert with_decoder.decoder_cleanup is True


def test_what_the_quicktour_trainer_saves_loads_as_hf() -> None:
    # tokenizers' own trainer, as its quicktour and the "BERT from scratch"
    # docs build it before they add a decoder: no normalizer, no decoder,
    # no post-processor.
    hf = HFTokenizer(models.WordPiece(unk_token="[UNK]"))
    hf.pre_tokenizer = pre.Whitespace()
    trainer = trainers.WordPieceTrainer(
        vocab_size=300, special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
    )
    corpus = [*REAL, *ADVERSARIAL] * 3
    hf.train_from_iterator(corpus, trainer)
    wp = wpiece.Tokenizer.from_hf(hf)
    for text in [*REAL, *ADVERSARIAL]:
        assert_encode_as_hf(hf, wp, text, lookups=True)
        ids = hf.encode(text).ids
        assert wp.decode(ids) == hf.decode(ids), text
        assert wp.decode(ids, skip_special_tokens=False) == hf.decode(
            ids, skip_special_tokens=False
        ), text


def test_what_the_trainer_saves_without_special_tokens_loads_as_hf() -> None:
    # Without special_tokens, HF's trainer saves a model whose unk token is
    # not in its vocabulary: HF loads it and fails only on a word that needs
    # the token (a bare Exception there, ValueError here), on every path.
    hf = HFTokenizer(models.WordPiece(unk_token="[UNK]"))
    hf.pre_tokenizer = pre.Whitespace()
    hf.train_from_iterator(REAL * 3, trainers.WordPieceTrainer(vocab_size=200))
    assert hf.token_to_id("[UNK]") is None
    wp = wpiece.Tokenizer.from_str(hf.to_str())
    known, unknown = [], []
    for text in [*REAL, *ADVERSARIAL]:
        try:
            hf.encode(text)
        except Exception:  # noqa: BLE001 - HF raises a bare Exception
            unknown.append(text)
            with pytest.raises(ValueError, match=r"unknown token \"\[UNK\]\""):
                wp.encode(text)
            continue
        known.append(text)
        assert_encode_as_hf(hf, wp, text, lookups=True)
        assert_encode_as_hf(hf, wp, text, "naïve café", add=False)
    assert known and unknown
    assert [e.ids for e in wp.encode_batch(known)] == [e.ids for e in hf.encode_batch(known)]
    flat, rows = wp.encode_batch_flat(known)[:2]
    assert flat.tolist() == [i for e in hf.encode_batch(known) for i in e.ids]
    bad = [*known, unknown[0]]
    for call in (
        lambda: wp.encode_batch(bad),
        lambda: wp.encode_batch_flat(bad),
        lambda: wp.encode_batch_numpy(bad),
        lambda: wp.encode_arrow(pa.array(bad)),
        lambda: wp.encode(known[0], unknown[0]),
    ):
        with pytest.raises(ValueError, match="not in the vocabulary"):
            call()
    # Saved and loaded again, still the same.
    again = wpiece.Tokenizer.from_str(wp.to_json())
    assert again.encode(known[0]).ids == hf.encode(known[0]).ids
    # The stats count the words that would need it: what they are for.
    assert wp.stats(known).unknown_words == 0
    assert wp.stats(bad).unknown_words > 0


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.update(version="2.0"), "version"),
        (lambda d: d.update(version=1), "version"),
        (lambda d: d.update(extra=1), "extra"),
        (lambda d: d.pop("model"), "model"),
    ],
)
def test_the_loader_refuses_what_hf_refuses(mutate: Callable[[dict], Any], message: str) -> None:
    d = bert_json()
    mutate(d)
    text = json.dumps(d)
    # tokenizers raises a bare Exception for a file it cannot read.
    with pytest.raises(Exception):  # noqa: B017
        HFTokenizer.from_str(text)
    with pytest.raises(ValueError, match=message):
        wpiece.Tokenizer.from_str(text)


def test_the_loader_takes_what_hf_takes_without_a_version() -> None:
    d = bert_json()
    del d["version"]
    hf, wp = both(d)
    assert wp.encode(REAL[0]).ids == hf.encode(REAL[0]).ids


# Fields HF's reader requires: a file without one is refused by HF, and was
# loaded by wpiece with a default its author may not have meant.
_REQUIRED_FIELDS = [
    ("model", "unk_token"),
    ("model", "continuing_subword_prefix"),
    ("model", "max_input_chars_per_word"),
    ("normalizer", "clean_text"),
    ("normalizer", "handle_chinese_chars"),
    ("normalizer", "lowercase"),
    ("decoder", "prefix"),
    ("decoder", "cleanup"),
    ("truncation", "strategy"),
    ("truncation", "stride"),
    ("padding", "direction"),
    ("padding", "pad_id"),
    ("padding", "pad_type_id"),
    ("padding", "pad_token"),
]


@pytest.mark.parametrize("part, field", _REQUIRED_FIELDS, ids=lambda x: str(x))
def test_a_field_hf_requires_is_required(part: str, field: str) -> None:
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    del spec[part][field]
    text = json.dumps(spec)
    with pytest.raises(Exception):  # noqa: B017 (HF raises Exception itself)
        HFTokenizer.from_str(text)
    with pytest.raises(ValueError, match=rf"{part}: missing field `{field}`"):
        wpiece.Tokenizer.from_str(text)


@pytest.mark.parametrize(
    "part, field", [("normalizer", "strip_accents"), ("padding", "pad_to_multiple_of")]
)
def test_a_field_hf_defaults_stays_optional(part: str, field: str) -> None:
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    del spec[part][field]
    text = json.dumps(spec)
    assert wpiece.Tokenizer.from_str(text).encode("Héllo").ids == (
        HFTokenizer.from_str(text).encode("Héllo").ids
    )


@pytest.mark.parametrize("part", ["normalizer", "decoder", "post_processor"])
def test_a_part_without_its_type_is_refused_where_hf_guesses_it(part: str) -> None:
    # README: HF infers the type from the fields; wpiece does not guess.
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    del spec[part]["type"]
    text = json.dumps(spec)
    HFTokenizer.from_str(text)
    with pytest.raises(ValueError, match=f"{part} has no type"):
        wpiece.Tokenizer.from_str(text)
