"""Parity with HF `tokenizers` on the same vocab: ids, tokens, offsets, masks, decode."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import BertWordPieceTokenizer
from tokenizers import Tokenizer as HFTokenizer

import wpiece

from adversarial import ADVERSARIAL
from conftest import EN_FIXTURE, TOKENIZER_JSON, VOCAB_TXT, examples, hf_bert, wp_bert


def assert_same(hf_enc, wp_enc, text) -> None:
    assert wp_enc.ids == hf_enc.ids, text
    assert wp_enc.tokens == hf_enc.tokens, text
    assert wp_enc.offsets == hf_enc.offsets, text
    assert wp_enc.type_ids == hf_enc.type_ids, text
    assert wp_enc.special_tokens_mask == hf_enc.special_tokens_mask, text
    assert wp_enc.attention_mask == hf_enc.attention_mask, text


def test_real_text_fixture_identical(pair_of_tokenizers, en_lines) -> None:
    hf, wp = pair_of_tokenizers
    assert len(en_lines) > 8000
    hf_encs = hf.encode_batch(en_lines)
    wp_encs = wp.encode_batch(en_lines)
    identical = 0
    for text, h, w in zip(en_lines, hf_encs, wp_encs):
        assert_same(h, w, text)
        identical += 1
    assert identical == len(en_lines)


def test_real_text_decode_identical(pair_of_tokenizers, en_lines) -> None:
    hf, wp = pair_of_tokenizers
    sample = en_lines[::7]
    ids = [e.ids for e in hf.encode_batch(sample)]
    assert wp.decode_batch(ids) == hf.decode_batch(ids)
    assert wp.decode_batch(ids, skip_special_tokens=False) == hf.decode_batch(
        ids, skip_special_tokens=False
    )


def test_runs_of_non_ascii_words_identical_past_what_one_general_call_takes(
    pair_of_tokenizers,
) -> None:
    """Words holding non-ASCII bytes that follow each other go to the general
    layer together, up to 4 KiB at a time: runs shorter and longer than
    that, with ASCII words, CJK, accents and a special token among them."""
    hf, wp = pair_of_tokenizers
    words = ["привет", "мир,", "ok", "日本語", "É", "naïve", "x\t", "щ"]
    texts = [" ".join(words * k) + " [CLS] x" for k in (1, 50, 120, 400)]
    texts += [("ще " * 3000) + "end", ("ще" * 3000) + " end", "ще " * 1365 + "[SEP]ще"]
    for text in texts:
        assert_same(hf.encode(text), wp.encode(text), text[:40])
    flat = wp.encode_batch_flat(texts)[0].tolist()
    assert flat == [i for e in hf.encode_batch(texts) for i in e.ids]


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_adversarial_identical(pair_of_tokenizers, text) -> None:
    hf, wp = pair_of_tokenizers
    assert_same(hf.encode(text), wp.encode(text), text)
    assert_same(
        hf.encode(text, add_special_tokens=False), wp.encode(text, add_special_tokens=False), text
    )
    ids = hf.encode(text).ids
    assert wp.decode(ids) == hf.decode(ids)
    assert wp.decode(ids, skip_special_tokens=False) == hf.decode(ids, skip_special_tokens=False)


def test_adversarial_cases_really_exercise_edges() -> None:
    """The set must hit unk, whole-word unk by length, and in-text specials."""
    wp = wp_bert()
    tokens = [t for text in ADVERSARIAL for t in wp.tokenize(text)]
    assert "[UNK]" in tokens and "[CLS]" in tokens and "[MASK]" in tokens
    assert wp.tokenize("z" * 101) == ["[UNK]"]
    assert wp.tokenize("y" * 100) != ["[UNK]"]


def test_pairs_identical(pair_of_tokenizers, en_lines) -> None:
    hf, wp = pair_of_tokenizers
    for a, b in zip(en_lines[:300:3], en_lines[1:300:3]):
        assert_same(hf.encode(a, b), wp.encode(a, b), (a, b))
    for a, b in zip(ADVERSARIAL, reversed(ADVERSARIAL)):
        assert_same(hf.encode(a, b), wp.encode(a, b), (a, b))


@pytest.mark.parametrize("max_length", [0, 1, 2, 3, 5, 8, 17, 64])
@pytest.mark.parametrize("strategy", ["longest_first", "only_first", "only_second"])
def test_truncation_identical(en_lines, max_length, strategy) -> None:
    hf, wp = hf_bert(), wp_bert()
    hf.enable_truncation(max_length, strategy=strategy)
    wp.enable_truncation(max_length, strategy=strategy)
    for a, b in zip(en_lines[:40], en_lines[40:80]):
        if max_length < 3:
            # HF's unsigned subtraction wraps and skips truncation; wpiece refuses.
            with pytest.raises(ValueError, match="smaller than the 3 special tokens"):
                wp.encode(a, b)
            continue
        try:
            expected = hf.encode(a, b)
        except Exception:
            with pytest.raises(ValueError):
                wp.encode(a, b)
            continue
        assert_same(expected, wp.encode(a, b), (a, b))
        if strategy == "longest_first" and max_length >= 2:
            assert_same(hf.encode(a), wp.encode(a), a)


@pytest.mark.parametrize("length", [None, 7, 40])
@pytest.mark.parametrize("multiple", [None, 8])
def test_padding_identical(en_lines, length, multiple) -> None:
    hf, wp = hf_bert(), wp_bert()
    hf.enable_padding(length=length, pad_to_multiple_of=multiple)
    wp.enable_padding(length=length, pad_to_multiple_of=multiple)
    batch = en_lines[100:120]
    for h, w, text in zip(hf.encode_batch(batch), wp.encode_batch(batch), batch):
        assert_same(h, w, text)
    assert_same(hf.encode(batch[0]), wp.encode(batch[0]), batch[0])


def test_numpy_batch_matches_hf_padded(en_lines) -> None:
    hf, wp = hf_bert(), wp_bert()
    hf.enable_truncation(32)
    hf.enable_padding(length=32)
    batch = en_lines[:50]
    arrays = wp.encode_batch_numpy(batch, padding="max_length", max_length=32, truncation=True)
    expected = hf.encode_batch(batch)
    assert arrays["input_ids"].dtype == np.int64
    assert arrays["input_ids"].shape == (50, 32)
    assert arrays["input_ids"].tolist() == [e.ids for e in expected]
    assert arrays["attention_mask"].tolist() == [e.attention_mask for e in expected]
    assert arrays["token_type_ids"].tolist() == [e.type_ids for e in expected]
    assert arrays["special_tokens_mask"].tolist() == [e.special_tokens_mask for e in expected]


def test_flat_batch_equals_hf(en_lines) -> None:
    hf, wp = hf_bert(), wp_bert()
    texts = en_lines[:500] + ADVERSARIAL
    ids, rows, offsets = wp.encode_batch_flat(texts, return_offsets=True)
    assert ids.dtype == np.uint32 and rows.shape == (len(texts) + 1,)
    assert offsets.shape == (len(ids), 2)
    for i, e in enumerate(hf.encode_batch(texts)):
        assert ids[rows[i] : rows[i + 1]].tolist() == e.ids, texts[i]
        assert [tuple(o) for o in offsets[rows[i] : rows[i + 1]].tolist()] == e.offsets


@pytest.mark.parametrize("max_length", [2, 3, 9, 40])
@pytest.mark.parametrize("strategy", ["longest_first", "only_first", "only_second"])
def test_batches_of_single_texts_truncate_as_hf(en_lines, tmp_path, max_length, strategy) -> None:
    # Every batch entry point over single texts: the same ids and columns as
    # HF, or an error where HF raises one ('only_second' needs a pair, but
    # only once a text is cut; flat batches once cut instead of raising).
    hf, wp = hf_bert(), wp_bert()
    hf.enable_truncation(max_length, strategy=strategy)
    wp.enable_truncation(max_length, strategy=strategy)
    whole = hf_bert()
    short = [t for t in en_lines[:400] if 0 < len(whole.encode(t).ids) <= max_length][:20]
    # One document a line in the file: texts holding a line break are left out.
    single_lines = [t for t in ADVERSARIAL if "\n" not in t]
    batches = [en_lines[:60] + single_lines] + ([short] if short else [])
    for texts in batches:
        path = tmp_path / "texts.txt"
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
        try:
            expected = hf.encode_batch(texts)
        except Exception:
            with pytest.raises(ValueError, match="only_second"):
                wp.encode_batch(texts)
            with pytest.raises(ValueError, match="only_second"):
                wp.encode_batch_flat(texts)
            with pytest.raises(ValueError, match="only_second"):
                wp.encode_files(path)
            continue
        for h, w, text in zip(expected, wp.encode_batch(texts), texts):
            assert_same(h, w, text)
        for ids, rows in (wp.encode_batch_flat(texts), wp.encode_files(path)):
            assert [ids[rows[i] : rows[i + 1]].tolist() for i in range(len(texts))] == [
                e.ids for e in expected
            ]


def test_bare_vocab_txt_behaves_like_bert_wordpiece_tokenizer(en_lines) -> None:
    for lowercase in (True, False):
        hf = BertWordPieceTokenizer(str(VOCAB_TXT), lowercase=lowercase)
        wp = wpiece.Tokenizer.from_file(VOCAB_TXT, lowercase=lowercase)
        texts = en_lines[:200] + ADVERSARIAL
        for text in texts:
            assert_same(hf.encode(text), wp.encode(text), text)
        a, b = en_lines[0], en_lines[1]
        assert_same(hf.encode(a, b), wp.encode(a, b), (a, b))
        ids = hf.encode("[CLS] hello [MASK] world [SEP]").ids
        assert wp.decode(ids) == hf.decode(ids)


# Any Unicode text except surrogates (not valid in UTF-8 strings).
unicode_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=60
)
mixed_text = st.lists(
    st.one_of(
        unicode_text,
        st.sampled_from(["[CLS]", "[UNK]", "##", " ", "don't", "Straße", "İ", "中", "👍🏽"]),
    ),
    max_size=8,
).map("".join)


@settings(max_examples=examples(400), deadline=None)
@given(text=unicode_text)
def test_hypothesis_unicode_uncased(text) -> None:
    hf, wp = _cached(True)
    assert_same(hf.encode(text), wp.encode(text), text)
    assert wp.decode(hf.encode(text).ids) == hf.decode(hf.encode(text).ids)


@settings(max_examples=examples(400), deadline=None)
@given(text=mixed_text)
def test_hypothesis_unicode_cased(text) -> None:
    hf, wp = _cached(False)
    assert_same(hf.encode(text), wp.encode(text), text)


_CACHE: dict[bool, tuple] = {}


def _cached(lowercase: bool):
    if lowercase not in _CACHE:
        _CACHE[lowercase] = (hf_bert(lowercase), wp_bert(lowercase))
    return _CACHE[lowercase]


# Documents made of a few recurring chunks, so the word cache is hit (and
# missed) in every mode: cased/accented/CJK/control chars/added tokens, words
# over the 16 cached bytes, more than three tokens, separators inside and out.
chunk_words = st.sampled_from(
    [
        "the",
        "The",
        "word,",
        "(see",
        "don't",
        "U.S.A.",
        "café",
        "Ñandú!",
        "中文",
        "naïve-ish",
        "x\x01y",
        "\x0b",
        "[CLS]",
        "a[UNK]b",
        "##",
        "e\u0301",
        "İstanbul",
        "incomprehensibilities",
        "antidisestablishmentarianism,",
        "👍🏽ok",
        "Straße.",
        "ab\u00a0cd",
        "tab\tbed",
        "ǅ",
        "1,234.5",
        "",
    ]
)
chunk_separators = st.sampled_from([" ", "  ", "\t", "\n", "\r\n", " \u3000 ", "\x0c"])
chunky_docs = st.lists(
    st.lists(st.tuples(chunk_words, chunk_separators), max_size=12).map(
        lambda parts: "".join(w + s for w, s in parts)
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=examples(300), deadline=None)
@given(docs=chunky_docs, lowercase=st.booleans())
def test_hypothesis_recurring_chunks(docs, lowercase) -> None:
    hf, wp = _cached(lowercase)
    expected = hf.encode_batch(docs)
    for _ in range(2):  # the second round finds every word cached
        ids, rows = wp.encode_batch_flat(docs)
        ids_o, rows_o, offsets = wp.encode_batch_flat(docs, return_offsets=True)
        for i, e in enumerate(expected):
            assert ids[rows[i] : rows[i + 1]].tolist() == e.ids, docs[i]
            assert ids_o[rows_o[i] : rows_o[i + 1]].tolist() == e.ids, docs[i]
            got = [tuple(o) for o in offsets[rows_o[i] : rows_o[i + 1]].tolist()]
            assert got == e.offsets, docs[i]
    for doc, e in zip(docs, expected):
        assert_same(e, wp.encode(doc), doc)


def test_cached_chunk_offsets_after_non_ascii_text() -> None:
    hf, wp = _cached(True)
    for text in ["hello, world", "é hello, world", "中文 hello, world", "hello, world ü"]:
        assert_same(hf.encode(text), wp.encode(text), text)


def test_added_token_with_whitespace_matches_across_chunks(tmp_path, en_lines) -> None:
    # An added token holding a space or tab: text can no longer be cut into
    # independent chunks at whitespace, and the result must still be HF's.
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    spec["truncation"] = spec["padding"] = None
    vocab = spec["model"]["vocab"]
    for old, new in [("[unused0]", "new york"), ("[unused1]", "a\tb")]:
        token_id = vocab.pop(old)
        vocab[new] = token_id
        spec["added_tokens"].append(
            {
                "id": token_id,
                "content": new,
                "special": False,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
            }
        )
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    hf = HFTokenizer.from_file(str(path))
    wp = wpiece.Tokenizer.from_file(path)
    texts = ["I love new york and New York, new  york, a\tb a b", "new york"] + en_lines[:300]
    for text in texts:
        assert_same(hf.encode(text), wp.encode(text), text)
    assert wp.encode("new york").ids[1:-1] == [vocab["new york"]]


batch_settings = st.fixed_dictionaries(
    {
        "add_special_tokens": st.booleans(),
        "max_length": st.one_of(st.none(), st.integers(3, 12)),
        "strategy": st.sampled_from(["longest_first", "only_first", "only_second"]),
        "padding": st.sampled_from([None, "longest", "fixed"]),
        "length": st.integers(0, 14),
        "multiple": st.sampled_from([None, 1, 4]),
        "pad": st.sampled_from([("[PAD]", None, 0), ("[MASK]", None, 1), ("[PAD]", 7, 2)]),
    }
)


@settings(max_examples=examples(150), deadline=None)
@given(docs=chunky_docs, s=batch_settings)
def test_hypothesis_encode_batch_rows_as_hf(docs, s) -> None:
    # A batch of single texts comes back as rows of one flat batch, made when
    # read: every field, padding and truncation setting as HF's Encodings;
    # pickled rows equal the rows; a row equals the same text encoded alone.
    import pickle

    hf, wp = hf_bert(), wp_bert()
    if s["max_length"] is not None:
        hf.enable_truncation(s["max_length"], strategy=s["strategy"])
        wp.enable_truncation(s["max_length"], strategy=s["strategy"])
    if s["padding"]:
        token, pad_id, type_id = s["pad"]
        length = s["length"] if s["padding"] == "fixed" else None
        kwargs = {"pad_token": token, "pad_type_id": type_id, "pad_to_multiple_of": s["multiple"]}
        # No pad_id: each library's default (HF: 0, whatever the pad token).
        if pad_id is not None:
            kwargs["pad_id"] = pad_id
        hf.enable_padding(length=length, **kwargs)
        wp.enable_padding(length=length, **kwargs)
    add = s["add_special_tokens"]
    try:
        expected = hf.encode_batch(docs, add_special_tokens=add)
    except Exception:
        with pytest.raises(ValueError):
            wp.encode_batch(docs, add_special_tokens=add)
        return
    got = wp.encode_batch(docs, add_special_tokens=add)
    assert len(got) == len(expected)
    for doc, h, w in zip(docs, expected, got):
        assert_same(h, w, doc)
        assert len(w) == len(h.ids)
    assert pickle.loads(pickle.dumps(got)) == got
    if s["padding"] is None:
        assert got == [wp.encode(d, add_special_tokens=add) for d in docs]


@pytest.mark.parametrize("texts", [[], [""], ["", "a"], ["\x00", " ", "\u3000"], ["a " * 300]])
@pytest.mark.parametrize("pad", [None, {}, {"length": 3}, {"length": 0, "pad_to_multiple_of": 5}])
def test_edge_batches_of_rows_as_hf(texts, pad) -> None:
    # Empty batches, empty and blank texts, rows longer than a fixed padding.
    for add in (True, False):
        hf, wp = hf_bert(), wp_bert()
        if pad is not None:
            hf.enable_padding(**pad)
            wp.enable_padding(**pad)
        expected = hf.encode_batch(texts, add_special_tokens=add)
        got = wp.encode_batch(texts, add_special_tokens=add)
        assert len(got) == len(expected)
        for text, h, w in zip(texts, expected, got):
            assert_same(h, w, text)


def test_a_row_outlives_its_batch_and_tokenizer() -> None:
    import gc
    import pickle

    wp = wp_bert()
    encs = wp.encode_batch(["hello world", "x"], padding=True)
    del wp
    row = encs[1]
    del encs
    gc.collect()
    assert row.tokens == ["[CLS]", "x", "[SEP]", "[PAD]"] and len(row) == 4
    assert pickle.loads(pickle.dumps(row)) == row


def test_from_hf_takes_tokenizers_and_transformers_objects() -> None:
    from tokenizers.models import BPE
    from transformers import PreTrainedTokenizerFast

    texts = EN_FIXTURE.read_text(encoding="utf-8").splitlines()[:300] + list(ADVERSARIAL)
    for lowercase in (True, False):
        hf = hf_bert(lowercase)
        tok = wpiece.Tokenizer.from_hf(hf)
        assert [e.ids for e in tok.encode_batch(texts)] == [e.ids for e in hf.encode_batch(texts)]
        fast = PreTrainedTokenizerFast(tokenizer_object=hf)
        via_transformers = wpiece.Tokenizer.from_hf(fast)
        assert via_transformers.encode_batch_flat(texts)[0].tolist() == (
            tok.encode_batch_flat(texts)[0].tolist()
        )
    # Settings come along: truncation and padding as the object has them.
    hf = hf_bert()
    hf.enable_truncation(max_length=10)
    hf.enable_padding(length=12, pad_id=0, pad_token="[PAD]")
    tok = wpiece.Tokenizer.from_hf(hf)
    got = [(e.ids, e.attention_mask) for e in tok.encode_batch(texts[:50])]
    assert got == [(e.ids, e.attention_mask) for e in hf.encode_batch(texts[:50])]
    with pytest.raises(wpiece.UnsupportedComponentError, match="BPE|model"):
        wpiece.Tokenizer.from_hf(HFTokenizer(BPE()))
    with pytest.raises(TypeError, match="tokenizers.Tokenizer"):
        wpiece.Tokenizer.from_hf("bert-base-uncased")


# Combining marks of many classes (nonspacing, spacing, enclosing; classes 1
# to 240), alone or after letters: NFD puts runs of them in canonical order,
# and HF aligns the chars it moves by position, not by where they came from.
_MARKS = [chr(c) for c in (0x0301, 0x0316, 0x0323, 0x0345, 0x05B0, 0x064B, 0x08D9, 0x0903)]
_MARKS += [chr(c) for c in (0x093C, 0x094D, 0x0E38, 0x1B72, 0x1BAA, 0x1DFB, 0x20E8, 0x302A)]
_MARKS += ["\U0001d165", "\u0489"]
_BASES = ["a", "e", "\u00c4", "\u1ec7", "z", " ", "\u4e2d", "\u1ff7", "\u212b", "!"]
_STRIP_ACCENTS = {"uncased": (True, None), "cased, strip_accents": (False, True)}


@pytest.mark.parametrize("config", list(_STRIP_ACCENTS))
@settings(max_examples=examples(400), deadline=None)
@given(texts=st.lists(st.lists(st.sampled_from(_MARKS + _BASES), max_size=10).map("".join)))
def test_combining_marks_nfd_reorders_align_as_hf(config: str, texts: list[str]) -> None:
    # wpiece's BERT normalizer aligned each moved mark to its own source:
    # "\u1dfb\u1baa" gave the [UNK] of its word offsets (1, 1), HF (0, 2).
    lowercase, strip = _STRIP_ACCENTS[config]
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    spec["normalizer"].update(lowercase=lowercase, strip_accents=strip)
    spec["truncation"] = spec["padding"] = None
    hf = HFTokenizer.from_str(json.dumps(spec))
    wp = wpiece.Tokenizer.from_str(json.dumps(spec))
    for text in texts:
        h, w = hf.encode(text), wp.encode(text)
        assert (w.ids, w.offsets) == (h.ids, h.offsets), text
        assert [w.char_to_token(i) for i in range(len(text))] == [
            h.char_to_token(i) for i in range(len(text))
        ], text
    got = wp.encode_batch(texts)
    assert [e.offsets for e in got] == [e.offsets for e in hf.encode_batch(texts)]
