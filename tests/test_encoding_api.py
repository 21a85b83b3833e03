"""Parity with HF `tokenizers` on the whole Encoding API of the BERT tokenizer.

Every attribute and every lookup method at every position (and past the
ends), single inputs and pairs, with and without special tokens; truncation
with every strategy, direction and stride, the overflowing parts compared
recursively (HF nests them for pairs); padding on either side, overflowing
parts included; word ids in the flat and numpy batches; settings carried by
``from_hf``/``from_str``/``to_json``; the transformers drop-in making
overflowing windows. Where HF raises (or panics) wpiece must raise ValueError.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Optional

import numpy as np
import pytest
from hf_compare import (
    _attempt,
    assert_encode_as_hf,
    assert_fields,
    assert_lookups,
    assert_tree,
    set_padding,
    set_truncation,
    wraps_in_hf,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer

import wpiece

from adversarial import ADVERSARIAL
from conftest import EN_FIXTURE, TOKENIZER_JSON, VOCAB_TXT, examples, hf_bert, wp_bert

LINES = EN_FIXTURE.read_text(encoding="utf-8").splitlines()
SPECIALS = ["[MASK]", "[SEP]", "[CLS]", "[PAD]", "[UNK]"]


def _with_special_tokens(lines: list[str]) -> list[str]:
    """Real lines with special tokens written into the text: as a word of
    their own, glued to the end of a word, and two in a row glued to a word."""
    out = []
    for i, line in enumerate(lines):
        words = line.split(" ")
        token = SPECIALS[i % len(SPECIALS)]
        k = (i * 7) % len(words)
        if i % 3 == 0:
            words.insert(k, token)
        elif i % 3 == 1:
            words[k] += token
        else:
            words[k] = token + "[MASK]" + words[k]
        out.append(" ".join(words))
    return out


SPECIAL_LINES = _with_special_tokens(LINES[1000:1045])
# About 300 real lines: the start of the fixture, a spread over all of it, and
# lines holding special tokens.
TEXTS = LINES[:150] + LINES[150::80] + SPECIAL_LINES
PAIRS = list(zip(TEXTS[0:160:2], TEXTS[1:160:2])) + list(zip(SPECIAL_LINES, TEXTS[200:]))
ADVERSARIAL_PAIRS = list(zip(ADVERSARIAL, reversed(ADVERSARIAL))) + [("", ""), ("a", ""), ("", "a")]

STRATEGIES = ("longest_first", "only_first", "only_second")


@functools.cache
def _cached(lowercase: bool) -> tuple[HFTokenizer, wpiece.Tokenizer]:
    return hf_bert(lowercase), wp_bert(lowercase)


def bert(lowercase: bool = True) -> tuple[HFTokenizer, wpiece.Tokenizer]:
    """The cached HF and wpiece BERT tokenizers, truncation and padding off."""
    hf, wp = _cached(lowercase)
    hf.no_truncation()
    hf.no_padding()
    wp.no_truncation()
    wp.no_padding()
    return hf, wp


def assert_batch_as_hf(
    hf: HFTokenizer,
    wp: wpiece.Tokenizer,
    texts: list[str],
    pairs: Optional[list[str]] = None,
    add: bool = True,
) -> None:
    inputs: list[Any] = texts if pairs is None else list(zip(texts, pairs))
    where = (hf.truncation, hf.padding, add, pairs is not None)
    if wraps_in_hf(hf, pairs is not None, add):
        with pytest.raises(ValueError):
            wp.encode_batch(texts, pairs, add)
        return
    expected, error = _attempt(lambda: hf.encode_batch(inputs, add_special_tokens=add))
    if error is not None:
        with pytest.raises(ValueError):
            wp.encode_batch(texts, pairs, add)
        return
    got = wp.encode_batch(texts, pairs, add)
    assert len(got) == len(expected)
    for i, (h, w) in enumerate(zip(expected, got)):
        assert_tree(h, w, (where, inputs[i]))


# ----- every field and lookup, no truncation -----------------------------------


@pytest.mark.parametrize("add", [True, False], ids=["specials", "no_specials"])
@pytest.mark.parametrize("lowercase", [True, False], ids=["uncased", "cased"])
def test_single_lines_every_field_and_lookup(lowercase, add) -> None:
    hf, wp = bert(lowercase)
    for text in TEXTS:
        h, w = hf.encode(text, add_special_tokens=add), wp.encode(text, add_special_tokens=add)
        assert_fields(h, w, text)
        assert_lookups(h, w, len(text), text)
        assert w.overflowing == [] and h.overflowing == []
    expected = hf.encode_batch(TEXTS, add_special_tokens=add)
    for text, h, w in zip(TEXTS, expected, wp.encode_batch(TEXTS, add_special_tokens=add)):
        assert_fields(h, w, text)
    assert any("[MASK]" in h.tokens for h in expected[-len(SPECIAL_LINES) :])


@pytest.mark.parametrize("add", [True, False], ids=["specials", "no_specials"])
@pytest.mark.parametrize("lowercase", [True, False], ids=["uncased", "cased"])
def test_pairs_every_field_and_lookup(lowercase, add) -> None:
    hf, wp = bert(lowercase)
    for a, b in PAIRS + ADVERSARIAL_PAIRS:
        h = hf.encode(a, b, add_special_tokens=add)
        w = wp.encode(a, b, add_special_tokens=add)
        assert_fields(h, w, (a, b))
        assert_lookups(h, w, max(len(a), len(b)), (a, b))
    texts, pairs = [a for a, _ in PAIRS], [b for _, b in PAIRS]
    expected = hf.encode_batch(PAIRS, add_special_tokens=add)
    got = wp.encode_batch(texts, pairs, add_special_tokens=add)
    for pair, h, w in zip(PAIRS, expected, got):
        assert_fields(h, w, pair)
    assert all(h.n_sequences == 2 for h in expected)


@pytest.mark.parametrize("text", ADVERSARIAL)
@pytest.mark.parametrize("lowercase", [True, False], ids=["uncased", "cased"])
def test_adversarial_every_field_and_lookup(lowercase, text) -> None:
    hf, wp = bert(lowercase)
    for add in (True, False):
        for pair in (None, text, "second [MASK] part"):
            h = hf.encode(text, pair, add_special_tokens=add)
            w = wp.encode(text, pair, add_special_tokens=add)
            assert_fields(h, w, (text, pair, add))
            assert_lookups(h, w, max(len(text), len(pair or "")), (text, pair, add))


def test_lookup_arguments_out_of_range_as_hf() -> None:
    # Negative ints and ints past u32/u64: HF's Python binding raises
    # OverflowError for them; past the end of the encoding it gives None.
    hf, wp = bert()
    for text, pair in [("Hello, world! [MASK] again", None), ("a b c", "d e"), ("", None)]:
        for add in (True, False):
            h = hf.encode(text, pair, add_special_tokens=add)
            w = wp.encode(text, pair, add_special_tokens=add)
            extra = (-1, -2, len(h) + 10, 2**31, 2**32, 2**32 + 1, 2**63, 2**64)
            assert_lookups(h, w, 3, (text, pair, add), extra=extra)


def test_lookup_methods_take_hf_keyword_names() -> None:
    hf, wp = bert()
    h, w = hf.encode("Hello there, world", "and more"), wp.encode("Hello there, world", "and more")
    calls = [
        ("char_to_token", {"char_pos": 7, "sequence_index": 0}),
        ("char_to_token", {"char_pos": 5, "sequence_index": 1}),
        ("char_to_word", {"char_pos": 13, "sequence_index": 0}),
        ("token_to_chars", {"token_index": 2}),
        ("token_to_word", {"token_index": 6}),
        ("token_to_sequence", {"token_index": 6}),
        ("word_to_tokens", {"word_index": 1, "sequence_index": 1}),
        ("word_to_chars", {"word_index": 2, "sequence_index": 0}),
    ]
    for method, kwargs in calls:
        expected = getattr(h, method)(**kwargs)
        assert expected is not None, method
        assert getattr(w, method)(**kwargs) == expected, method


def test_sequence_index_past_the_pair_looks_at_all_tokens() -> None:
    # HF's quirk, pinned: a sequence index the encoding lacks means "every
    # token", so word 0 of sequence 2 is word 0 of the first sequence.
    hf, wp = bert()
    h, w = hf.encode("ab cd ef", "gh ij"), wp.encode("ab cd ef", "gh ij")
    assert h.word_to_tokens(0, 2) == (1, 2)
    assert w.word_to_tokens(0, 2) == (1, 2)
    assert w.char_to_token(6, 2) == h.char_to_token(6, 2) == 3
    assert w.token_to_sequence(len(h)) is None and h.token_to_sequence(len(h)) is None


# ----- truncation and overflowing ----------------------------------------------


@functools.cache
def _counter() -> HFTokenizer:
    return hf_bert()


def _tokens(text: str) -> int:
    return len(_counter().encode(text, add_special_tokens=False).ids)


TRUNC_SINGLES = [t for t in TEXTS if _tokens(t) <= 60][:24] + [
    "",
    "a",
    "one two",
    "[MASK] [SEP]",
    "z" * 101,
    "中文字符测试 and 日本語",
]
# Short pairs: the overflowing parts of a pair are the products of both sides'.
TRUNC_PAIRS = [(a, b) for a, b in PAIRS if _tokens(a) <= 24 and _tokens(b) <= 24][:10] + [
    ("", "one two three four five six"),
    ("one two three four five six", ""),
    ("a [MASK] b", "c [SEP] d e f g h"),
]


@pytest.mark.parametrize("max_length", [0, 1, 2, 3, 4, 5, 7, 10, 16, 33])
@pytest.mark.parametrize("stride", [0, 1, 2, 5])
@pytest.mark.parametrize("direction", ["right", "left"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_truncation_and_overflowing_as_hf(strategy, direction, stride, max_length) -> None:
    hf, wp = bert()
    if not set_truncation(
        hf, wp, max_length, stride=stride, strategy=strategy, direction=direction
    ):
        return
    for add in (True, False):
        for i, text in enumerate(TRUNC_SINGLES):
            assert_encode_as_hf(hf, wp, text, None, add, lookups=i < 3)
        for i, (a, b) in enumerate(TRUNC_PAIRS):
            assert_encode_as_hf(hf, wp, a, b, add, lookups=i < 2)
        assert_batch_as_hf(hf, wp, TRUNC_SINGLES[:12], None, add)
        assert_batch_as_hf(hf, wp, [a for a, _ in TRUNC_PAIRS], [b for _, b in TRUNC_PAIRS], add)


def test_truncation_cases_really_overflow_and_raise() -> None:
    # The matrix above must meet nested overflowing, left windows and errors.
    hf, _ = bert()
    hf.enable_truncation(10, stride=1)
    a, b = TRUNC_PAIRS[0]
    enc = hf.encode(a, b)
    assert enc.overflowing and any(o.overflowing for o in enc.overflowing)
    hf.enable_truncation(7, stride=2, direction="left")
    enc = hf.encode(TRUNC_SINGLES[0])
    hf.no_truncation()
    whole = hf.encode(TRUNC_SINGLES[0])
    assert enc.tokens[1:-1] == whole.tokens[-6:-1] and enc.overflowing  # the end is kept
    hf.enable_truncation(5, strategy="only_second")
    assert _attempt(lambda: hf.encode(TRUNC_SINGLES[0]))[1] is not None
    hf.enable_truncation(6, stride=4)  # accepted: HF refuses only stride > 6 - 2 ...
    assert _attempt(lambda: hf.encode(TRUNC_SINGLES[0]))[1] is not None  # ... then panics
    hf.no_truncation()


@pytest.mark.parametrize(
    "kwargs", [{"max_length": 5, "strategy": "nope"}, {"max_length": 5, "direction": "middle"}]
)
def test_truncation_names_hf_refuses_are_refused(kwargs) -> None:
    hf, wp = bert()
    with pytest.raises(ValueError):
        hf.enable_truncation(**kwargs)
    with pytest.raises(ValueError):
        wp.enable_truncation(**kwargs)


@pytest.mark.parametrize("max_length,stride", [(5, 4), (2, 1), (3, 2), (10, 9), (10, 30)])
def test_truncation_strides_hf_refuses_are_refused(max_length, stride) -> None:
    # HF refuses stride > max_length - 2 (its message says ">=") when set.
    hf, wp = bert()
    with pytest.raises(ValueError):
        hf.enable_truncation(max_length, stride=stride)
    assert not set_truncation(hf, wp, max_length, stride=stride)


@pytest.mark.parametrize("max_length,stride", [(2, 0), (3, 1), (5, 0), (5, 3), (6, 4)])
def test_truncation_settings_hf_accepts_are_accepted(max_length, stride) -> None:
    # stride == max_length - 2 is accepted by HF (it refuses only stride >
    # max_length - 2), so short texts still encode; longer ones fail later.
    hf, wp = bert()
    hf.enable_truncation(max_length, stride=stride, direction="left")
    wp.enable_truncation(max_length, stride=stride, direction="left")
    assert (
        wp.truncation
        == hf.truncation
        == {
            "max_length": max_length,
            "stride": stride,
            "strategy": "longest_first",
            "direction": "left",
        }
    )
    for text in ["", "a", "a b", "a b c d e f g h"]:
        assert_encode_as_hf(hf, wp, text)


@pytest.mark.parametrize("stride", [7, 30])
def test_a_tokenizer_json_stride_hf_would_refuse_to_set_fails_only_where_a_cut_is_made(
    stride,
) -> None:
    """HF loads such a truncation from tokenizer.json as it is: texts that
    need no cut encode, a cut fails (HF panics; wpiece raises ValueError)."""
    import pyarrow as pa

    d = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    d["padding"] = None
    d["truncation"] = {"direction": "Right", "max_length": 8, "strategy": "LongestFirst"}
    d["truncation"]["stride"] = stride
    text = json.dumps(d)
    hf, wp = HFTokenizer.from_str(text), wpiece.Tokenizer.from_str(text)
    short = ["hello world", "", "a b c d e f"]
    for t in short:
        assert wp.encode(t).ids == hf.encode(t).ids
        assert (
            wp.encode(t, add_special_tokens=False).ids == hf.encode(t, add_special_tokens=False).ids
        )
    assert [e.ids for e in wp.encode_batch(short)] == [e.ids for e in hf.encode_batch(short)]
    ids, rows = wp.encode_batch_flat(short)
    assert [ids[rows[i] : rows[i + 1]].tolist() for i in range(3)] == [
        e.ids for e in hf.encode_batch(short)
    ]
    arrow = wp.encode_arrow(pa.array(short)).to_pylist()
    assert arrow == [e.ids for e in hf.encode_batch(short)]
    padded = wp.encode_batch_numpy(short)["input_ids"]
    assert [[i for i in row if i != 0] for row in padded.tolist()] == arrow
    long = "a b c d e f g h i j"
    with pytest.raises(BaseException, match="stride|Stride"):  # a panic
        hf.encode(long)
    for call in (
        lambda: wp.encode(long),
        lambda: wp.encode_batch(short + [long]),
        lambda: wp.encode_batch_flat(short + [long]),
        lambda: wp.encode_arrow(pa.array(short + [long])),
        lambda: wp.encode_batch_numpy(short + [long]),
    ):
        with pytest.raises(ValueError, match="stride"):
            call()
    # Set through the API, as HF's enable_truncation, it is refused at once.
    with pytest.raises(ValueError):
        hf.enable_truncation(8, stride=stride)
    with pytest.raises(ValueError, match="stride"):
        wp.enable_truncation(8, stride=stride)


# ----- padding ------------------------------------------------------------------


def test_pad_id_is_zero_unless_given_whatever_the_pad_token_as_hf() -> None:
    # Code written for HF names a pad token and no id: HF pads with id 0,
    # even for a token of another id or none at all.
    hf, wp = bert()
    for token in ("[MASK]", "[PAD]", "not-in-the-vocab"):
        for t in (hf, wp):
            t.enable_padding(pad_token=token)
        h, w = hf.encode_batch(["hi", "hello world"]), wp.encode_batch(["hi", "hello world"])
        assert [e.ids for e in w] == [e.ids for e in h], token
        assert [e.tokens for e in w] == [e.tokens for e in h], token
        assert w[0].ids[-1] == 0 and w[0].tokens[-1] == token
        assert wp.padding == hf.padding
    # pad_id=None (which HF refuses) asks for the pad token's own id.
    wp.enable_padding(pad_token="[MASK]", pad_id=None)
    assert wp.encode_batch(["hi", "hello world"])[0].ids[-1] == 103
    with pytest.raises(ValueError, match="not-in-the-vocab"):
        wp.enable_padding(pad_token="not-in-the-vocab", pad_id=None)


# No pad_id: each library's default (HF's is 0 whatever the pad token).
@pytest.mark.parametrize(
    "pad",
    [("[PAD]", None, 0), ("[MASK]", None, 1), ("[MASK]", 103, 1)],
    ids=["pad", "mask-default-id", "mask"],
)
@pytest.mark.parametrize(
    "length,multiple", [(None, None), (None, 8), (7, None), (40, None), (40, 16), (0, 5)]
)
@pytest.mark.parametrize("direction", ["right", "left"])
def test_padding_as_hf(direction, length, multiple, pad) -> None:
    hf, wp = bert()
    token, pad_id, type_id = pad
    set_padding(
        hf,
        wp,
        length=length,
        pad_to_multiple_of=multiple,
        pad_token=token,
        pad_type_id=type_id,
        direction=direction,
        **({} if pad_id is None else {"pad_id": pad_id}),
    )
    batch = TEXTS[100:130] + SPECIAL_LINES[:5] + ["", " "]
    pairs = TEXTS[130:167]
    for add in (True, False):
        inputs = [(None, batch), (pairs, batch)]
        for second, texts in inputs:
            joined: list[Any] = texts if second is None else list(zip(texts, second))
            expected = hf.encode_batch(joined, add_special_tokens=add)
            got = wp.encode_batch(texts, second, add_special_tokens=add)
            for i, (h, w) in enumerate(zip(expected, got)):
                assert_tree(h, w, (joined[i], add))
                n_chars = max(len(texts[i]), len(second[i]) if second else 0)
                assert_lookups(h, w, n_chars, (joined[i], add, "padded"))
        for text in batch[:5]:
            assert_encode_as_hf(hf, wp, text, None, add, lookups=True)
            assert_encode_as_hf(hf, wp, text, pairs[0], add, lookups=True)


@pytest.mark.parametrize("direction", ["right", "left"])
@pytest.mark.parametrize("length", [None, 12, 20])
def test_padding_with_truncation_pads_overflowing_as_hf(direction, length) -> None:
    hf, wp = bert()
    set_padding(hf, wp, length=length, pad_to_multiple_of=4, direction=direction)
    for trunc_dir in ("right", "left"):
        assert set_truncation(hf, wp, 12, stride=2, direction=trunc_dir)
        for add in (True, False):
            assert_batch_as_hf(hf, wp, TRUNC_SINGLES[:16], None, add)
            assert_batch_as_hf(
                hf, wp, [a for a, _ in TRUNC_PAIRS], [b for _, b in TRUNC_PAIRS], add
            )
            for text in TRUNC_SINGLES[:4]:
                assert_encode_as_hf(hf, wp, text, None, add, lookups=True)
    hf.enable_truncation(12, stride=2)
    padded = hf.encode_batch(TRUNC_SINGLES[:16])
    assert any(
        o.tokens[-1] == "[PAD]" or o.tokens[0] == "[PAD]" for e in padded for o in e.overflowing
    )


# ----- word ids in the array batches --------------------------------------------


def _word_row(word_ids: list[Optional[int]]) -> list[int]:
    return [-1 if w is None else w for w in word_ids]


@pytest.mark.parametrize("max_length", [None, 9])
@pytest.mark.parametrize("add", [True, False], ids=["specials", "no_specials"])
def test_flat_batch_word_ids_as_hf(add, max_length) -> None:
    hf, wp = bert()
    if max_length is not None:
        assert set_truncation(hf, wp, max_length)
    texts = TEXTS + ADVERSARIAL
    expected = hf.encode_batch(texts, add_special_tokens=add)
    out = wp.encode_batch_flat(texts, add, return_word_ids=True)
    assert len(out) == 3
    ids, rows, word_ids = out
    assert word_ids.dtype == np.int64 and word_ids.shape == ids.shape
    for i, e in enumerate(expected):
        assert ids[rows[i] : rows[i + 1]].tolist() == e.ids, texts[i]
        assert word_ids[rows[i] : rows[i + 1]].tolist() == _word_row(e.word_ids), texts[i]
    out = wp.encode_batch_flat(texts, add, return_offsets=True, return_word_ids=True)
    assert len(out) == 4
    ids2, rows2, offsets, word_ids2 = out
    assert np.array_equal(ids2, ids) and np.array_equal(rows2, rows)
    assert np.array_equal(word_ids2, word_ids)
    for i, e in enumerate(expected):
        assert [tuple(o) for o in offsets[rows[i] : rows[i + 1]].tolist()] == e.offsets
    assert len(wp.encode_batch_flat(texts, add)) == 2
    assert len(wp.encode_batch_flat(texts, add, return_offsets=True)) == 3


@pytest.mark.parametrize("texts", [["", ""], [""], ["", "a b"], ["a", ""]])
@pytest.mark.parametrize("max_length", [None, 0])
@pytest.mark.parametrize("direction", ["right", "left"])
def test_padded_rows_of_no_tokens_keep_their_offsets_and_word_ids(
    texts, max_length, direction
) -> None:
    """Every row empty before padding (empty texts without specials, or cut
    to 0 tokens): the flat and Arrow batches lost their offsets and word ids
    (the Arrow one raised), as if none had been asked for."""
    import pyarrow as pa

    hf, wp = bert()
    for tok in (hf, wp):
        tok.enable_padding(length=3, direction=direction)
        if max_length is not None:
            tok.enable_truncation(max_length=max_length)
    expected = hf.encode_batch(texts, add_special_tokens=False)
    ids, rows, offsets, word_ids = wp.encode_batch_flat(
        texts, False, return_offsets=True, return_word_ids=True
    )
    assert offsets.shape == (len(ids), 2) and word_ids.shape == ids.shape
    arrow = wp.encode_arrow(pa.array(texts), False, return_offsets=True).to_pylist()
    for i, e in enumerate(expected):
        row = slice(rows[i], rows[i + 1])
        assert ids[row].tolist() == e.ids
        assert [tuple(o) for o in offsets[row].tolist()] == e.offsets
        assert word_ids[row].tolist() == _word_row(e.word_ids)
        assert arrow[i]["input_ids"] == e.ids
        assert [tuple(o) for o in arrow[i]["offsets"]] == e.offsets


@pytest.mark.parametrize("with_pairs", [False, True], ids=["single", "pairs"])
@pytest.mark.parametrize("direction", ["right", "left"])
def test_numpy_batch_word_ids_as_hf(direction, with_pairs) -> None:
    hf, wp = bert()
    set_padding(hf, wp, direction=direction)
    texts = TEXTS[:64] + ADVERSARIAL[:10]
    pairs = (TEXTS[64:128] + ADVERSARIAL[10:20]) if with_pairs else None
    joined: list[Any] = texts if pairs is None else list(zip(texts, pairs))
    for add in (True, False):
        expected = hf.encode_batch(joined, add_special_tokens=add)
        out = wp.encode_batch_numpy(texts, pairs, add, return_word_ids=True)
        assert out["word_ids"].dtype == np.int64
        assert out["word_ids"].shape == out["input_ids"].shape
        assert out["word_ids"].tolist() == [_word_row(e.word_ids) for e in expected]
        assert out["input_ids"].tolist() == [e.ids for e in expected]
        assert out["attention_mask"].tolist() == [e.attention_mask for e in expected]
        assert out["token_type_ids"].tolist() == [e.type_ids for e in expected]
        assert out["special_tokens_mask"].tolist() == [e.special_tokens_mask for e in expected]
        assert "word_ids" not in wp.encode_batch_numpy(texts, pairs, add)
    # Fixed length with truncation: the rows HF makes with both set.
    hf.enable_truncation(16)
    hf.enable_padding(length=16, direction=direction)
    expected = hf.encode_batch(joined)
    out = wp.encode_batch_numpy(
        texts, pairs, padding="max_length", truncation=True, max_length=16, return_word_ids=True
    )
    assert out["input_ids"].shape == (len(texts), 16)
    assert out["input_ids"].tolist() == [e.ids for e in expected]
    assert out["word_ids"].tolist() == [_word_row(e.word_ids) for e in expected]


# ----- settings carried by the JSON -----------------------------------------------


@pytest.mark.parametrize("direction", ["right", "left"])
@pytest.mark.parametrize("strategy", ["longest_first", "only_first"])
def test_settings_travel_with_tokenizer_json(tmp_path, strategy, direction) -> None:
    hf = hf_bert()
    hf.enable_truncation(11, stride=3, strategy=strategy, direction=direction)
    hf.enable_padding(
        pad_to_multiple_of=8, pad_token="[MASK]", pad_id=103, pad_type_id=1, direction=direction
    )
    path = tmp_path / "tokenizer.json"
    path.write_text(hf.to_str(), encoding="utf-8")
    loaded = {
        "from_hf": wpiece.Tokenizer.from_hf(hf),
        "from_str": wpiece.Tokenizer.from_str(hf.to_str()),
        "from_file": wpiece.Tokenizer.from_file(path),
    }
    singles = TEXTS[:30] + ADVERSARIAL
    expected_batch = hf.encode_batch(singles)
    for name, wp in loaded.items():
        assert wp.truncation == hf.truncation, name
        for text in TRUNC_SINGLES + ADVERSARIAL:
            assert_encode_as_hf(hf, wp, text)
        for a, b in TRUNC_PAIRS:
            assert_encode_as_hf(hf, wp, a, b)
        for text, h, w in zip(singles, expected_batch, wp.encode_batch(singles)):
            assert_tree(h, w, (name, text))
        back = HFTokenizer.from_str(wp.to_json())
        assert back.truncation == hf.truncation, name
        assert back.padding == hf.padding, name
        saved = tmp_path / f"{name}.json"
        wp.save(saved)
        again = HFTokenizer.from_file(str(saved))
        assert again.truncation == hf.truncation and again.padding == hf.padding
        for h, a in zip(expected_batch, again.encode_batch(singles)):
            assert_tree(h, a, (name, "saved"))


# ----- transformers ---------------------------------------------------------------


def _bert_tokenizer_fast() -> Any:
    from transformers import BertTokenizerFast

    size = len(_counter().get_vocab())
    ref = BertTokenizerFast(vocab_file=str(VOCAB_TXT))
    if len(ref.get_vocab()) != size:
        # transformers 5 drops vocab_file= silently (it takes vocab=) and
        # makes a five-token vocabulary: every word would be [UNK].
        ref = BertTokenizerFast(vocab=str(VOCAB_TXT))
    assert len(ref.get_vocab()) == size
    return ref


@pytest.mark.parametrize("with_pairs", [False, True], ids=["single", "pairs"])
def test_to_transformers_overflowing_windows_as_bert_tokenizer_fast(with_pairs) -> None:
    ref = _bert_tokenizer_fast()
    mine = wp_bert().to_transformers()
    texts = TEXTS[:60] + ADVERSARIAL
    args: tuple[list[str], ...] = (texts,)
    if with_pairs:
        # only_second: a first text over the max length would make HF raise.
        firsts = [t for t in TEXTS if _tokens(t) <= 10][:30]
        args = (firsts, TEXTS[60 : 60 + len(firsts)])
    kwargs: dict[str, Any] = {
        "return_overflowing_tokens": True,
        "stride": 2,
        "truncation": "only_second" if with_pairs else True,
        "max_length": 12 if not with_pairs else 24,
        "return_offsets_mapping": True,
    }
    want = ref(*args, **kwargs)
    got = mine(*args, **kwargs)
    assert len(want["input_ids"]) > len(args[0])  # windows were made
    assert len(set(want["overflow_to_sample_mapping"])) == len(args[0])
    for key in (
        "input_ids",
        "token_type_ids",
        "attention_mask",
        "overflow_to_sample_mapping",
        "offset_mapping",
    ):
        assert got[key] == want[key], key
    for i in range(len(want["input_ids"])):
        assert got.word_ids(i) == want.word_ids(i), i
        assert got.sequence_ids(i) == want.sequence_ids(i), i
    padded_want = ref(*args, padding="max_length", **kwargs)
    padded_got = mine(*args, padding="max_length", **kwargs)
    assert padded_got["input_ids"] == padded_want["input_ids"]
    assert padded_got["attention_mask"] == padded_want["attention_mask"]


# ----- Hypothesis -----------------------------------------------------------------

PIECES = [
    "the",
    "The",
    "running",
    "un",
    "##",
    "##ing",
    "###",
    "[MASK]",
    "[SEP]",
    "[CLS]",
    "[PAD]",
    "[UNK]",
    "[mask]",
    "[MASK",
    "don't",
    ",",
    ".",
    "!?",
    "(",
    "-",
    "``",
    "中",
    "文字",
    "日本語",
    "한국",
    "e\u0301",
    "\u0301",
    "a\u0300\u0316",
    "\x00",
    "\x07",
    "\x1b",
    "\x85",
    "\u200b",
    "\ufeff",
    "\ufffd",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\u00a0",
    "\u3000",
    "\u2028",
    "👍🏽",
    "👩\u200d👩\u200d👧",
    "🇫🇷",
    "😀",
    "x" * 101,
    "é" * 100,
    "12,345.67",
    "İ",
    "ß",
    "ﬁ",
    "Ǆ",
    "ΣΑΣ",
]
any_chars = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=4)
ascii_words = st.from_regex(r"[A-Za-z]{1,9}", fullmatch=True)
text_st = st.lists(
    st.one_of(st.sampled_from(PIECES), any_chars, ascii_words, st.just(" ")), max_size=16
).map("".join)
positions = st.lists(st.integers(-3, 200), max_size=10).map(tuple)
trunc_st = st.fixed_dictionaries(
    {
        "max_length": st.integers(0, 24),
        "stride": st.integers(0, 8),
        "strategy": st.sampled_from(STRATEGIES),
        "direction": st.sampled_from(["right", "left"]),
    }
)
pad_st = st.none() | st.fixed_dictionaries(
    {
        "length": st.none() | st.integers(0, 30),
        "pad_to_multiple_of": st.none() | st.integers(1, 9),
        "direction": st.sampled_from(["right", "left"]),
        "pad_token": st.sampled_from(["[PAD]", "[MASK]"]),
        "pad_id": st.sampled_from([0, 103]),
        "pad_type_id": st.integers(0, 2),
    }
)


@settings(max_examples=examples(60), deadline=None)
@given(
    text=text_st,
    pair=st.none() | text_st,
    add=st.booleans(),
    lowercase=st.booleans(),
    probes=positions,
)
def test_hypothesis_every_field_and_lookup(text, pair, add, lowercase, probes) -> None:
    hf, wp = bert(lowercase)
    h = hf.encode(text, pair, add_special_tokens=add)
    w = wp.encode(text, pair, add_special_tokens=add)
    assert_fields(h, w, (text, pair))
    assert_lookups(h, w, max(len(text), len(pair or "")), (text, pair), extra=probes)


@settings(max_examples=examples(60), deadline=None)
@given(text=text_st, pair=st.none() | text_st, add=st.booleans(), trunc=trunc_st, pad=pad_st)
def test_hypothesis_truncation_padding_overflowing(text, pair, add, trunc, pad) -> None:
    hf, wp = bert()
    if not set_truncation(hf, wp, **trunc):
        return
    if pad is not None:
        set_padding(hf, wp, **pad)
    assert_encode_as_hf(hf, wp, text, pair, add, lookups=True)


@settings(max_examples=examples(40), deadline=None)
@given(
    docs=st.lists(st.tuples(text_st, text_st), min_size=1, max_size=4),
    with_pairs=st.booleans(),
    add=st.booleans(),
    trunc=st.none() | trunc_st,
    pad=pad_st,
)
def test_hypothesis_batches_truncation_padding(docs, with_pairs, add, trunc, pad) -> None:
    hf, wp = bert()
    if trunc is not None and not set_truncation(hf, wp, **trunc):
        return
    if pad is not None:
        set_padding(hf, wp, **pad)
    texts = [a for a, _ in docs]
    pairs = [b for _, b in docs] if with_pairs else None
    assert_batch_as_hf(hf, wp, texts, pairs, add)


def test_batches_of_pairs_in_hfs_form() -> None:
    # HF takes a batch of pairs as (text, pair) items: wpiece raised TypeError
    # ("item 0 of texts is tuple").
    hf, wp = bert()
    items = [(TEXTS[k], TEXTS[k + 1]) for k in range(0, 40, 2)]
    for t in (hf, wp):
        t.enable_truncation(24)
        t.enable_padding()
    for batch in (items, [list(item) for item in items]):
        expected = hf.encode_batch(batch)
        got = wp.encode_batch(batch)
        for i, (h, w) in enumerate(zip(expected, got)):
            assert_tree(h, w, batch[i])
    apart = wp.encode_batch([a for a, _ in items], [b for _, b in items])
    assert [e.ids for e in apart] == [e.ids for e in got]
    numpy_rows = wp.encode_batch_numpy(items)["input_ids"].tolist()
    assert numpy_rows == [e.ids for e in got]
    words = [(a.split(), b.split()) for a, b in items]
    expected = hf.encode_batch(words, is_pretokenized=True)
    got = wp.encode_batch(words, is_pretokenized=True)
    for i, (h, w) in enumerate(zip(expected, got)):
        assert_tree(h, w, words[i])
    # HF also mixes single texts and pairs in one batch; wpiece refuses it.
    with pytest.raises(
        TypeError, match=r"item 1 of texts is str, where item 0 is a \(text, pair\)"
    ):
        wp.encode_batch([items[0], "a single text"])
    with pytest.raises(TypeError, match="item 1 of texts is list"):
        wp.encode_batch([words[0], ["single", "words"]], is_pretokenized=True)


@pytest.mark.parametrize("item", [("a",), ("a", "b", "c"), ["a"]])
def test_a_first_item_that_is_no_pair_is_named_as_such(item: Any) -> None:
    # It was "item 0 of texts is tuple, where item 0 is a (text, pair) tuple".
    _, wp = bert()
    with pytest.raises(TypeError, match=r"item 0 of texts is a \w+ of \d items: give a str, or"):
        wp.encode_batch([item, ("x", "y")])
