"""Added tokens exactly as HF's added vocabulary: tokens inside or outside the
vocab, special or not, with every flag (`single_word`, `lstrip`, `rstrip`,
`normalized`, `special`), added through `add_tokens` / `add_special_tokens`
or read from a tokenizer.json. Each case is compared with `tokenizers` on
real and adversarial text that holds the tokens (ids, tokens, offsets, word
ids, type ids, masks, pairs, overflow with stride, decode), and Hypothesis
draws token sets and texts around them."""

from __future__ import annotations

import itertools
import json
import pickle
import re
import warnings
from typing import Any

import pytest
from hf_compare import assert_encode_as_hf, set_truncation
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken as HFAddedToken
from tokenizers import Tokenizer as HFTokenizer

import wpiece
from wpiece import AddedToken

from adversarial import ADVERSARIAL
from conftest import TOKENIZER_JSON, examples, hf_bert, wp_bert

FLAGS = ("single_word", "lstrip", "rstrip", "normalized", "special")
# Inside the vocab, outside it, changed by the normalizer, with spaces, prefix-like.
CONTENTS = ["hello", "<ent>", "Covid19", "wörld", "[MASK]", "a b", "##x", "É!"]
TEXTS = [
    "Hello my  <ent>  thewörld wörld! covid19x COVID19 a b ab [MASK]x ##x",
    "<ent><ent> hello<ent>hello \t<ent>\u00a0",
    "WÖRLD's É! é! a  b",
    "",
    " ",
    *ADVERSARIAL[:12],
    "[CLS] hi [UNK] ## ##a [SEP][MASK][PAD]",
]
PAIR = "and  <ent> a pair hello"


def hf_token(t: AddedToken) -> HFAddedToken:
    kw = {f: getattr(t, f) for f in FLAGS if getattr(t, f) is not None}
    return HFAddedToken(t.content, **kw)


def both(
    tokens: list[Any] = (), specials: list[Any] = (), lowercase: bool = True
) -> tuple[HFTokenizer, wpiece.Tokenizer]:
    """BERT (uncased or cased) with the same tokens added to both."""
    hf, wp = hf_bert(lowercase), wp_bert(lowercase)
    h = [hf_token(t) if isinstance(t, AddedToken) else t for t in tokens]
    assert wp.add_tokens(list(tokens)) == hf.add_tokens(h)
    h = [hf_token(t) if isinstance(t, AddedToken) else t for t in specials]
    assert wp.add_special_tokens(list(specials)) == hf.add_special_tokens(h)
    return hf, wp


def assert_same(hf: HFTokenizer, wp: wpiece.Tokenizer, texts: list[str] = TEXTS) -> None:
    for text in texts:
        for add in (True, False):
            assert_encode_as_hf(hf, wp, text, add=add)
        assert_encode_as_hf(hf, wp, text, PAIR, lookups=True)
        ids = hf.encode(text, PAIR).ids
        for skip in (True, False):
            assert wp.decode(ids, skip) == hf.decode(ids, skip_special_tokens=skip), text
    assert wp.get_vocab() == hf.get_vocab()
    assert wp.get_vocab(with_added_tokens=False) == hf.get_vocab(with_added_tokens=False)
    for with_added in (True, False):
        assert wp.get_vocab_size(with_added) == hf.get_vocab_size(with_added)
    decoder = {
        i: (t.content, *(getattr(t, f) for f in FLAGS))
        for i, t in wp.get_added_tokens_decoder().items()
    }
    hf_decoder = {
        i: (t.content, *(getattr(t, f) for f in FLAGS))
        for i, t in hf.get_added_tokens_decoder().items()
    }
    assert decoder == hf_decoder
    for id in [*decoder, 0, 30521, max(decoder) + 1]:
        assert wp.id_to_token(id) == hf.id_to_token(id), id
    for content in CONTENTS:
        assert wp.token_to_id(content) == hf.token_to_id(content), content


ALL_FLAGS = list(itertools.product((False, True), repeat=len(FLAGS)))


@pytest.mark.parametrize("flags", ALL_FLAGS, ids=lambda f: "".join("TF"[not x] for x in f))
def test_every_flag_combination_as_hf(flags: tuple[bool, ...]) -> None:
    kw = dict(zip(FLAGS, flags))
    tokens = [AddedToken(c, **kw) for c in CONTENTS]
    hf, wp = both(tokens)
    assert_same(hf, wp)


@pytest.mark.parametrize("lowercase", [True, False], ids=["uncased", "cased"])
def test_strings_and_specials_take_hfs_defaults(lowercase: bool) -> None:
    hf, wp = both(["Hello", "<new>", "", "wörld"], ["<ent>", "[MASK]", "Covid19"], lowercase)
    assert_same(hf, wp)
    # Again: ignored as already there; with other flags: same id, new flags.
    hf2, wp2 = both(["Hello", "<new>"], ["<ent>"], lowercase)
    assert wp2.add_tokens(["Hello", "<new>"]) == hf2.add_tokens(["Hello", "<new>"]) == 0
    changed = AddedToken("<new>", lstrip=True, special=True)
    assert wp2.add_tokens([changed]) == hf2.add_tokens([hf_token(changed)]) == 1
    assert_same(hf2, wp2)


def test_round_trips_through_tokenizer_json_both_ways(tmp_path) -> None:
    tokens = [
        AddedToken(c, lstrip=i % 2 == 0, single_word=i % 3 == 0) for i, c in enumerate(CONTENTS)
    ]
    hf, wp = both(tokens, ["<ent2>"])
    # wpiece writes what HF reads the same way, and reads what HF writes.
    assert_same(HFTokenizer.from_str(wp.to_json()), wp)
    assert_same(hf, wpiece.Tokenizer.from_str(hf.to_str()))
    wp.save(tmp_path / "tok")
    again = wpiece.Tokenizer.from_file(tmp_path / "tok")
    assert_same(hf, again)
    assert_same(hf, pickle.loads(pickle.dumps(wp)))


def test_ids_in_a_file_are_reassigned_as_hf_reassigns_them() -> None:
    d = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    d["truncation"] = d["padding"] = None
    base = {f: False for f in FLAGS}
    d["added_tokens"] += [
        {"id": 40000, "content": "<x>", **base},
        {"id": 35000, "content": "<y>", **base, "special": True},
        {"id": 7, "content": "the", **base, "special": True},
    ]
    text = json.dumps(d)
    hf, wp = HFTokenizer.from_str(text), wpiece.Tokenizer.from_str(text)
    assert wp.token_to_id("<x>") == hf.token_to_id("<x>") == 30522
    assert wp.token_to_id("the") == hf.token_to_id("the") == 1996
    assert_same(hf, wp, ["<x><y> the", "<y>the"])


@pytest.mark.parametrize("field", [*FLAGS, "content", "id"])
def test_an_added_token_missing_a_field_is_refused_as_hf_refuses_it(field: str) -> None:
    d = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    token = {"id": 30522, "content": "<x>", **{f: False for f in FLAGS}}
    del token[field]
    d["added_tokens"].append(token)
    with pytest.raises(Exception, match=field):
        HFTokenizer.from_str(json.dumps(d))
    with pytest.raises(ValueError, match=field):
        wpiece.Tokenizer.from_str(json.dumps(d))


def test_truncation_with_stride_over_added_tokens() -> None:
    tokens = [AddedToken("<ent>", lstrip=True, rstrip=True), "Covid19"]
    hf, wp = both(tokens, ["<s1>"])
    for max_length, stride in [(5, 1), (8, 3), (12, 0)]:
        if set_truncation(hf, wp, max_length, stride=stride):
            for text in TEXTS[:3]:
                assert_encode_as_hf(hf, wp, text, PAIR)
                assert_encode_as_hf(hf, wp, text, add=False)


def test_batches_of_every_form_carry_ids_past_the_vocab() -> None:
    hf, wp = both(["Covid19"], ["<ent>"])
    texts = ["covid19 <ent> x", "plain text", "<ent>"]
    expected = [e.ids for e in hf.encode_batch(texts)]
    assert [e.ids for e in wp.encode_batch(texts)] == expected
    assert [e.tokens for e in wp.encode_batch(texts)] == [e.tokens for e in hf.encode_batch(texts)]
    flat = wp.encode_batch_flat(texts)
    ids, rows = flat[0], flat[1]
    assert [list(ids[rows[i] : rows[i + 1]]) for i in range(len(texts))] == expected
    arrays = wp.encode_batch_numpy(texts)
    assert [
        [int(x) for x, m in zip(r, a) if m]
        for r, a in zip(arrays["input_ids"], arrays["attention_mask"])
    ] == expected
    assert max(max(e) for e in expected) == 30523
    assert wp.decode(expected[0], False) == hf.decode(expected[0], skip_special_tokens=False)


def test_arrow_carries_ids_past_the_vocab() -> None:
    pa = pytest.importorskip("pyarrow")
    hf, wp = both(["Covid19"], ["<ent>"])
    texts = ["covid19 <ent> x", "", "<ent><ent>"]
    got = wp.encode_arrow(pa.array(texts))
    assert got.to_pylist() == [e.ids for e in hf.encode_batch(texts)]


def test_to_transformers_declares_and_encodes_added_tokens() -> None:
    hf, wp = both([AddedToken("<ent>", lstrip=True), "Covid19"], ["<spec>"])
    t = wp.to_transformers()
    text = "a  <ent> covid19 <spec>b"
    assert t(text)["input_ids"] == hf.encode(text).ids
    assert t.decode(hf.encode(text).ids, skip_special_tokens=True) == hf.decode(hf.encode(text).ids)
    assert "<spec>" in t.all_special_tokens and "<ent>" not in t.all_special_tokens
    assert len(t) == len(wp) == hf.get_vocab_size()


def test_mpnet_as_transformers_saves_it(tmp_path) -> None:
    transformers = pytest.importorskip("transformers")
    from conftest import VOCAB_TXT

    bert = [t for t in VOCAB_TXT.read_text(encoding="utf-8").split("\n") if t]
    # MPNet's layout: its four specials, BERT's vocab, then <mask> (lstrip).
    tokens = ["<s>", "<pad>", "</s>", "<unk>", *bert, "<mask>"]
    slow = transformers.MPNetTokenizer(vocab={t: i for i, t in enumerate(tokens)})
    slow.save_pretrained(tmp_path)
    spec = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    mask = [t for t in spec["added_tokens"] if t["content"] == "<mask>"]
    assert mask and mask[0]["lstrip"], "the file should hold MPNet's lstrip <mask>"
    hf = HFTokenizer.from_file(str(tmp_path / "tokenizer.json"))
    wp = wpiece.Tokenizer.from_file(tmp_path / "tokenizer.json")
    texts = ["hello <mask> world", "Hello  <mask>", "<mask><mask>", *TEXTS]
    for text in texts:
        assert_encode_as_hf(hf, wp, text, "pair <mask>", lookups=True)
        assert_encode_as_hf(hf, wp, text)
    assert slow("the <mask> sat")["input_ids"] == wp.encode("the <mask> sat").ids


def test_equal_normalized_forms_give_the_lowest_id_where_hf_picks_by_hash(tmp_path) -> None:
    """HF picks one of the tokens by hash order, which changes from process
    to process; wpiece always picks the lowest id, and says so when such
    tokens are added or loaded (never a silent difference)."""
    with pytest.warns(UserWarning, match=r"'Zork', 'zork', 'ZORK' match the same text 'zork'"):
        hf, wp = both(["Zork", "zork", "ZORK"])
    ids = {hf.token_to_id(t) for t in ("Zork", "zork", "ZORK")}
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    for load in (lambda: wpiece.Tokenizer.from_file(path), lambda: pickle.loads(pickle.dumps(wp))):
        with pytest.warns(UserWarning, match=r"any one of ids \[30522, 30523, 30524\]"):
            load()
    # Adding others does not repeat it; a token of another form is no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        wp.add_tokens(["plugh"])
        wpiece.Tokenizer.from_file(TOKENIZER_JSON).add_tokens(["Zork", "plugh"])
    got = wp.encode("zork ZoRk", add_special_tokens=False).ids
    assert got == [min(ids)] * 2
    assert set(hf.encode("zork", add_special_tokens=False).ids) <= ids


def test_vocab_txt_refuses_to_drop_added_tokens(tmp_path) -> None:
    _, wp = both(["<new>"])
    with pytest.raises(ValueError, match="vocab.txt cannot hold the 1 added tokens"):
        wp.save(tmp_path / "vocab.txt")
    assert not (tmp_path / "vocab.txt").exists()


def test_bad_added_tokens_raise_clear_errors() -> None:
    wp = wp_bert()
    with pytest.raises(TypeError, match="not one token"):
        wp.add_tokens("<x>")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="str or wpiece.AddedToken"):
        wp.add_tokens([3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="lstrip must be a bool"):
        AddedToken("x", lstrip=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        AddedToken(None)  # type: ignore[arg-type]


# ----- Hypothesis --------------------------------------------------------

POOL = [
    "ab",
    "abc",
    "b c",
    " x",
    "x ",
    "<m>",
    "AB",
    "Ab",
    "é",
    "E\u0301",
    "中",
    "##b",
    "[CLS]",
    "a",
]
PIECES = st.sampled_from(
    [
        "ab",
        "abc",
        "b c",
        " x",
        "x ",
        "<m>",
        "AB",
        "é",
        "E\u0301",
        "中",
        "##b",
        "[CLS]",
        "a",
        "b",
        "  ",
        "\t",
        "!",
        "_",
        "7",
        "\u00a0",
    ]
)
tokens_strategy = st.lists(
    st.builds(
        AddedToken,
        st.sampled_from(POOL),
        st.booleans(),
        st.booleans(),
        st.booleans(),
        st.booleans(),
        st.booleans(),
    ),
    max_size=6,
)


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    tokens=tokens_strategy,
    specials=tokens_strategy,
    texts=st.lists(st.lists(PIECES, max_size=20).map("".join), min_size=1, max_size=4),
    lowercase=st.booleans(),
)
def test_random_token_sets_and_texts_as_hf(
    tokens: list[AddedToken], specials: list[AddedToken], texts: list[str], lowercase: bool
) -> None:
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        hf, wp = both(tokens, specials, lowercase)
    # HF picks among equal normalized forms by hash order (see above): wpiece
    # warns exactly then.
    forms: dict[str, set[int]] = {}
    for id, t in hf.get_added_tokens_decoder().items():
        if t.normalized:
            forms.setdefault(hf.normalizer.normalize_str(t.content), set()).add(id)
    shared = {repr(form) for form, ids in forms.items() if len(ids) > 1}
    assert {repr(p) for p, _ in wp._core.shared_added_patterns()} == shared
    # Each was told of when it arose (others may have arisen and gone since:
    # a token added again with other flags leaves its pattern).
    said = (re.search(r"match the same text (.*): HF", str(w.message)) for w in warned)
    assert shared <= {m.group(1) for m in said if m}
    assume(not shared)
    for text in texts:
        assert_encode_as_hf(hf, wp, text)
        assert_encode_as_hf(hf, wp, text, text[::-1])
        ids = hf.encode(text).ids
        for skip in (True, False):
            assert wp.decode(ids, skip) == hf.decode(ids, skip_special_tokens=skip)


@pytest.mark.parametrize(
    "tokens, texts",
    [
        ([AddedToken("\t", lstrip=True, rstrip=True, normalized=False)], ["\t\t", "a\t\t\tb"]),
        ([AddedToken("x", rstrip=True), AddedToken(" ", lstrip=True)], ["x y", "x ", "xx y"]),
        ([AddedToken("<", rstrip=True), AddedToken("\t", lstrip=True)], ["<\t", "a <\tb"]),
    ],
)
def test_a_match_left_empty_by_an_earlier_strip_is_dropped_as_in_hf(tokens, texts) -> None:
    hf, wp = both(tokens)
    for text in texts:
        assert_encode_as_hf(hf, wp, text, lookups=True)
        assert_encode_as_hf(hf, wp, text, add=False)


@pytest.mark.parametrize("content", ["\u200b", "\x00", "\u0301"])
def test_a_token_the_normalizer_empties_is_refused(content: str) -> None:
    """HF matches such a token as an empty string at every char, splitting
    all text into single chars; wpiece refuses it by name."""
    _, wp = both()
    with pytest.raises(wpiece.UnsupportedComponentError, match="normalizer empties it"):
        wp.add_tokens([content])
    assert wp.get_vocab_size() == 30522  # unchanged
    assert wp.add_tokens([AddedToken(content, normalized=False)]) == 1


@pytest.mark.parametrize(
    ("tokens", "text"),
    [
        ([AddedToken("x", rstrip=True), AddedToken(" ", lstrip=True)], "xx  x"),
        (
            [
                AddedToken("x", rstrip=True, normalized=False),
                AddedToken("\t", lstrip=True, normalized=False),
            ],
            "ok x  \t  y",
        ),
    ],
)
def test_a_match_inside_stripped_whitespace_fails_in_both(
    tokens: list[AddedToken], text: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """HF panics on such a text ("AddedVocabulary bad split"); wpiece raises
    a ValueError naming the token, from every call that encodes or counts
    it, and no panic (which printed to stderr and raised RuntimeError)."""
    hf, wp = both(tokens)
    with pytest.raises(BaseException, match="bad split"):  # HF's PanicException
        hf.encode(text)
    capfd.readouterr()
    named = json.dumps(tokens[1].content)  # as Rust quotes it
    message = re.escape(f"the added token {named} matches inside whitespace")
    with pytest.raises(ValueError, match=message):
        wp.encode(text)
    docs = ["fine text", text, "more"]
    with pytest.raises(ValueError, match=message):
        wp.encode_batch(docs)
    for threads in (1, 2):
        with pytest.raises(ValueError, match=message):
            wp.encode_batch_flat(docs * 2000, num_threads=threads)
    with pytest.raises(ValueError, match=message):
        wpiece.count_words(docs, tokenizer=wp)
    assert "panicked" not in capfd.readouterr().err
    # The texts around it still encode as HF's.
    assert_encode_as_hf(hf, wp, "fine text x y")
