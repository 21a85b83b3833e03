"""Parity with HF `tokenizers` on pipelines built from HF components.

Each pipeline is made with HF's Python API (a WordPiece model on the BERT
vocab, a normalizer, a pre-tokenizer, a post-processor and a WordPiece
decoder), loaded with ``wpiece.Tokenizer.from_hf`` and compared field by
field on real lines, the adversarial set, texts aimed at the component and
Hypothesis text, single inputs and pairs; decoding with cleanup on and off;
the tokenizer.json wpiece writes back loads in HF with the same results.
Components wpiece does not honour are refused with UnsupportedComponentError
naming them.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Callable, Optional

import pytest
from hf_compare import (
    _attempt,
    assert_encode_as_hf,
    assert_fields,
    assert_lookups,
    set_truncation,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, models
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders as dec
from tokenizers import normalizers as norm
from tokenizers import pre_tokenizers as pre
from tokenizers import processors as proc

import wpiece

from adversarial import ADVERSARIAL
from conftest import EN_FIXTURE, VOCAB_TXT, examples

LINES = EN_FIXTURE.read_text(encoding="utf-8").splitlines()
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]

# Texts aimed at the components: ligatures and fullwidth forms (NFKC), the
# docs' `` quotes, edge whitespace (Strip), dashes and "ab"/"##" (Split
# patterns), digits, accents, CJK, punctuation runs, specials in the text.
AIMED = [
    "ﬁne ﬂow ﬀ ﬃ ﬄ ﬅ Ⅻ ㎏ ½ ² ℌ ℍ ① ™",
    "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ１２３ ｈｅｌｌｏ，ｗｏｒｌｄ！",
    "``quoted'' and ``more`` ``` ` ''",
    "  leading and trailing spaces  ",
    "\t\ttabs\tand\nnewlines\n",
    "x-ray ab-ab --- a--b - -start end-",
    "abab aab abba ab ##ab ## ### #a# a##b ##ing",
    "#### a####b ##### --- ---- ababab",
    "2023-01-02 12345 1.5 3,000,000 ٣٤٥ ①② 0",
    "hello123world 4you x1y2z3 99problems",
    "e\u0301te\u0301 cafe\u0301 ÅNGSTRÖM Ǆ ǅ ß ẞ İstanbul",
    "中文ab中文 中-中 日本語テキスト 한국어",
    "don't stop-believing!!! (really?) [brackets] {braces} ...",
    "the [MASK] sat on the [SEP]mat[CLS] x[PAD]y [UNK]",
    "eeeee e ee eye",
    "\u00a0nbsp\u3000ideographic\u2028line\u200bzero-width",
    "",
    " ",
    "-",
    "ab",
    "##",
    "x",
]
TEXTS = LINES[:200] + LINES[200::100] + AIMED
PAIRS = (
    list(zip(LINES[:120:2], LINES[1:120:2]))
    + list(zip(AIMED, reversed(AIMED)))
    + list(zip(ADVERSARIAL[::2], ADVERSARIAL[1::2]))
)
# A few inputs for the lookup methods, whose answers depend on the framing.
LOOKUP_INPUTS: list[tuple[str, Optional[str]]] = [
    (LINES[0], None),
    (LINES[1], LINES[2]),
    (AIMED[5], AIMED[6]),
    (AIMED[12], None),
    ("", "b c"),
    ("a b", ""),
]

# ----- building pipelines -----------------------------------------------------


def bert_template() -> Any:
    return proc.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 101), ("[SEP]", 102)],
    )


def template(single: str, pair: Optional[str] = None, extra: tuple[Any, ...] = ()) -> Any:
    specials: list[Any] = [("[CLS]", 101), ("[SEP]", 102), ("[MASK]", 103), *extra]
    return proc.TemplateProcessing(single=single, pair=pair, special_tokens=specials)


# A special token of two ids, whose token strings are not the vocab's (HF
# emits them as given), and one whose strings are ("a" is 1037, "b" 1038).
MULTI_ID = {"id": "[X]", "ids": [5, 6], "tokens": ["a", "b"]}
MULTI_ID_VOCAB = {"id": "[X]", "ids": [1037, 1038], "tokens": ["a", "b"]}


@functools.cache
def _vocab() -> dict[str, int]:
    tokens = VOCAB_TXT.read_text(encoding="utf-8").split("\n")
    return {t: i for i, t in enumerate(tokens) if t}


def build(
    normalizer: Callable[[], Any] = lambda: norm.BertNormalizer(),
    pre_tokenizer: Callable[[], Any] = lambda: pre.BertPreTokenizer(),
    post_processor: Callable[[], Any] = bert_template,
    cleanup: bool = True,
    specials: bool = True,
    prefix: str = "##",
    max_input_chars_per_word: int = 100,
) -> HFTokenizer:
    if prefix == "##":
        model = models.WordPiece.from_file(
            str(VOCAB_TXT), unk_token="[UNK]", max_input_chars_per_word=max_input_chars_per_word
        )
    else:
        vocab = {
            (prefix + t[2:] if t.startswith("##") and len(t) > 2 else t): i
            for t, i in _vocab().items()
        }
        model = models.WordPiece(
            vocab,
            unk_token="[UNK]",
            continuing_subword_prefix=prefix,
            max_input_chars_per_word=max_input_chars_per_word,
        )
    hf = HFTokenizer(model)
    if specials:
        hf.add_special_tokens(SPECIALS)
    hf.normalizer = normalizer()
    hf.pre_tokenizer = pre_tokenizer()
    hf.post_processor = post_processor()
    hf.decoder = dec.WordPiece(prefix=prefix, cleanup=cleanup)
    return hf


PIPELINES: dict[str, Callable[[], HFTokenizer]] = {}


def pipeline(name: str, **kwargs: Any) -> None:
    assert name not in PIPELINES, name
    PIPELINES[name] = functools.partial(build, **kwargs)


# Normalizers, each alone and in sequences (BERT pre-tokenizer and framing).
for _name, _normalizer in {
    "none": lambda: None,
    "bert": lambda: norm.BertNormalizer(),
    "bert-cased": lambda: norm.BertNormalizer(lowercase=False),
    "bert-clean-only": lambda: norm.BertNormalizer(
        clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=False
    ),
    "bert-chinese-only": lambda: norm.BertNormalizer(
        clean_text=False, handle_chinese_chars=True, strip_accents=False, lowercase=False
    ),
    "bert-strip-cased": lambda: norm.BertNormalizer(strip_accents=True, lowercase=False),
    "bert-lower-keep-accents": lambda: norm.BertNormalizer(strip_accents=False),
    "nfd": lambda: norm.NFD(),
    "nfc": lambda: norm.NFC(),
    "nfkd": lambda: norm.NFKD(),
    "nfkc": lambda: norm.NFKC(),
    "lowercase": lambda: norm.Lowercase(),
    "strip-accents": lambda: norm.StripAccents(),
    "docs-nfd-lower-strip-accents": lambda: norm.Sequence(
        [norm.NFD(), norm.Lowercase(), norm.StripAccents()]
    ),
    "nfkc-lower": lambda: norm.Sequence([norm.NFKC(), norm.Lowercase()]),
    "nfkd-lower-strip-accents": lambda: norm.Sequence(
        [norm.NFKD(), norm.Lowercase(), norm.StripAccents()]
    ),
    "replace-quotes": lambda: norm.Replace("``", '"'),
    "replace-delete": lambda: norm.Sequence([norm.Lowercase(), norm.Replace("e", "")]),
    "replace-grow": lambda: norm.Sequence([norm.Lowercase(), norm.Replace("-", " -- ")]),
    "replace-space": lambda: norm.Sequence([norm.Lowercase(), norm.Replace(" ", "\u2581")]),
    "replace-multibyte": lambda: norm.Sequence([norm.Replace("中", "zh"), norm.Lowercase()]),
    "prepend": lambda: norm.Sequence([norm.Lowercase(), norm.Prepend("x")]),
    "prepend-metaspace": lambda: norm.Sequence([norm.Prepend("\u2581"), norm.Lowercase()]),
    "docs-strip-replace-prepend": lambda: norm.Sequence(
        [norm.Strip(), norm.Replace("``", '"'), norm.Prepend("x")]
    ),
    "sequence-empty": lambda: norm.Sequence([]),
    "sequence-nested": lambda: norm.Sequence(
        [norm.Sequence([norm.NFD(), norm.StripAccents()]), norm.Lowercase(), norm.Strip()]
    ),
    "nfkc-then-bert": lambda: norm.Sequence([norm.NFKC(), norm.BertNormalizer()]),
}.items():
    pipeline(f"norm-{_name}", normalizer=_normalizer)

# Strip is seen only where whitespace is kept: each space a word of its own.
for _name, _strip in {
    "none": lambda: None,
    "both": lambda: norm.Strip(),
    "left": lambda: norm.Strip(left=True, right=False),
    "right": lambda: norm.Strip(left=False, right=True),
}.items():
    pipeline(
        f"norm-strip-{_name}",
        normalizer=_strip,
        pre_tokenizer=lambda: pre.Split(" ", "isolated"),
    )

# Pre-tokenizers, each alone and in sequences (BERT normalizer and framing).
for _name, _pre in {
    "bert": lambda: pre.BertPreTokenizer(),
    "whitespace": lambda: pre.Whitespace(),
    "whitespace-split": lambda: pre.WhitespaceSplit(),
    "digits-individual": lambda: pre.Digits(individual_digits=True),
    "digits-grouped": lambda: pre.Digits(individual_digits=False),
    "char-delimiter-dash": lambda: pre.CharDelimiterSplit("-"),
    "char-delimiter-space": lambda: pre.CharDelimiterSplit(" "),
    "docs-whitespace-digits": lambda: pre.Sequence(
        [pre.Whitespace(), pre.Digits(individual_digits=True)]
    ),
    "wsplit-punct-digits": lambda: pre.Sequence(
        [pre.WhitespaceSplit(), pre.Punctuation("contiguous"), pre.Digits(False)]
    ),
    "bert-char-delimiter": lambda: pre.Sequence(
        [pre.BertPreTokenizer(), pre.CharDelimiterSplit("e")]
    ),
    "sequence-empty": lambda: pre.Sequence([]),
    "sequence-nested": lambda: pre.Sequence(
        [pre.Sequence([pre.WhitespaceSplit()]), pre.Sequence([pre.Punctuation()])]
    ),
    "split-multibyte": lambda: pre.Sequence([pre.WhitespaceSplit(), pre.Split("中", "isolated")]),
}.items():
    pipeline(f"pre-{_name}", pre_tokenizer=_pre)

BEHAVIORS = ["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"]
for _b in BEHAVIORS:
    pipeline(f"pre-punctuation-{_b}", pre_tokenizer=functools.partial(pre.Punctuation, _b))
    for _invert in (False, True):
        _inv = "-invert" if _invert else ""
        pipeline(
            f"pre-split-space-{_b}{_inv}",
            pre_tokenizer=functools.partial(pre.Split, " ", _b, invert=_invert),
        )
        for _pattern, _pname in [("-", "dash"), ("ab", "ab"), ("##", "hashes")]:

            def _split_after_whitespace(p: str = _pattern, b: str = _b, i: bool = _invert) -> Any:
                return pre.Sequence([pre.WhitespaceSplit(), pre.Split(p, b, invert=i)])

            pipeline(
                f"pre-split-{_pname}-{_b}{_inv}",
                normalizer=norm.Lowercase,
                pre_tokenizer=_split_after_whitespace,
            )

# Post-processors (BERT normalizer and pre-tokenizer).
for _name, _post in {
    "none": lambda: None,
    "bert-processing": lambda: proc.BertProcessing(("[SEP]", 102), ("[CLS]", 101)),
    "bert-processing-other-tokens": lambda: proc.BertProcessing(("[MASK]", 103), ("[PAD]", 0)),
    "template-bert": bert_template,
    "template-typed-single": lambda: template("$A:1 [SEP]", "$A:1 [SEP] $B:0 [SEP]:1"),
    "template-b-first": lambda: template("[CLS] $A [SEP]", "[CLS] $B:1 [SEP]:1 $A:0 [SEP]"),
    "template-multi-id-vocab": lambda: template(
        "[CLS] $A [X]", "[X]:1 $A [SEP] $B:1 [X]:0", extra=(MULTI_ID_VOCAB,)
    ),
    "template-no-specials": lambda: template("$A", "$A $B:1"),
    "template-single-only": lambda: template("[CLS] $A [SEP]"),
    "template-dollar-forms": lambda: template("[CLS]:1 $1 [SEP]:1", "[CLS] $ [SEP] $B:1 [SEP]"),
    "template-many-specials": lambda: template(
        "[CLS] [CLS] $A [SEP] [MASK]", "[CLS] $A [SEP] [SEP] $B:1 [SEP]:1 [MASK]:0"
    ),
    "template-type-ids-over-1": lambda: template(
        "[CLS]:2 $A:3 [SEP]:4", "[CLS]:2 $A:3 [SEP]:4 $B:5 [SEP]:6"
    ),
    "template-a-twice": lambda: template("$A [SEP] $A", "[CLS] $B [SEP] $A:1 $B:1"),
    # Recent `tokenizers` write a Sequence around one processor.
    "sequence-of-template": lambda: proc.Sequence([bert_template()]),
    "sequence-of-template-typed": lambda: proc.Sequence(
        [template("[CLS]:2 $A:3 [SEP]:4", "[CLS]:2 $A:3 [SEP]:4 $B:5 [SEP]:6")]
    ),
    "sequence-of-bert-processing": lambda: proc.Sequence(
        [proc.BertProcessing(("[SEP]", 102), ("[CLS]", 101))]
    ),
    "sequence-of-roberta-processing": lambda: proc.Sequence(
        [proc.RobertaProcessing(("[SEP]", 102), ("[CLS]", 101))]
    ),
}.items():
    pipeline(f"post-{_name}", post_processor=_post)

# The decoder's cleanup, the model's settings, no special tokens registered.
pipeline("decoder-no-cleanup", cleanup=False)
pipeline("decoder-no-cleanup-cased", cleanup=False, normalizer=lambda: norm.Lowercase())
pipeline("model-prefix-at-at", prefix="@@")
pipeline("model-max-chars-12", max_input_chars_per_word=12)
pipeline("no-added-specials", specials=False)
pipeline(
    "no-added-specials-bert-processing",
    specials=False,
    post_processor=lambda: proc.BertProcessing(("[SEP]", 102), ("[CLS]", 101)),
)

NAMES = sorted(PIPELINES)
POST_NAMES = [n for n in NAMES if n.startswith("post-")]


@functools.cache
def hf_pipeline(name: str) -> HFTokenizer:
    return PIPELINES[name]()


@functools.cache
def loaded(name: str) -> tuple[HFTokenizer, wpiece.Tokenizer]:
    hf = hf_pipeline(name)
    return hf, wpiece.Tokenizer.from_hf(hf)


def pair_of(name: str) -> tuple[HFTokenizer, wpiece.Tokenizer]:
    hf, wp = loaded(name)
    hf.no_truncation()
    wp.no_truncation()
    return hf, wp


# ----- parity per pipeline --------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_single_texts_as_hf(name) -> None:
    hf, wp = pair_of(name)
    texts = TEXTS + ADVERSARIAL
    for add in (True, False):
        expected = hf.encode_batch(texts, add_special_tokens=add)
        got = wp.encode_batch(texts, add_special_tokens=add)
        assert len(got) == len(expected)
        for text, h, w in zip(texts, expected, got):
            assert_fields(h, w, (name, text, add))
        for text, h in zip(texts[::5], expected[::5]):
            assert_fields(h, wp.encode(text, add_special_tokens=add), (name, text, add))


@pytest.mark.parametrize("name", NAMES)
def test_pairs_as_hf(name) -> None:
    hf, wp = pair_of(name)
    firsts, seconds = [a for a, _ in PAIRS], [b for _, b in PAIRS]
    for add in (True, False):
        expected = hf.encode_batch(PAIRS, add_special_tokens=add)
        got = wp.encode_batch(firsts, seconds, add_special_tokens=add)
        assert len(got) == len(expected)
        for pair, h, w in zip(PAIRS, expected, got):
            assert_fields(h, w, (name, pair, add))
        for (a, b), h in zip(PAIRS[::7], expected[::7]):
            assert_fields(h, wp.encode(a, b, add_special_tokens=add), (name, a, b, add))


@pytest.mark.parametrize("name", NAMES)
def test_lookup_methods_as_hf(name) -> None:
    hf, wp = pair_of(name)
    for text, pair in LOOKUP_INPUTS:
        for add in (True, False):
            h = hf.encode(text, pair, add_special_tokens=add)
            w = wp.encode(text, pair, add_special_tokens=add)
            assert_lookups(h, w, max(len(text), len(pair or "")), (name, text, pair, add))


@pytest.mark.parametrize("name", NAMES)
def test_decode_as_hf(name) -> None:
    hf, wp = pair_of(name)
    sequences = [e.ids for e in hf.encode_batch(TEXTS[::3] + ADVERSARIAL)]
    sequences += [e.ids for e in hf.encode_batch(PAIRS[::4])]
    sequences += [
        [],
        list(range(990, 1040)),
        [101, 102, 103, 0, 100, 5, 6, 2023, 2003, 1037, 3231, 1012],
        [7592, 1010, 2088, 999, 1005, 1055, 1011, 1000, 24996, 2015],
        [2, 3, 29000, 30521],
    ]
    for ids in sequences:
        for skip in (True, False):
            assert wp.decode(ids, skip_special_tokens=skip) == hf.decode(
                ids, skip_special_tokens=skip
            ), (name, ids, skip)


@pytest.mark.parametrize("name", NAMES)
def test_written_json_loads_in_hf_with_same_results(name) -> None:
    # wpiece's tokenizer.json, read by HF and by wpiece: the same encodings
    # and decoding as the pipeline it was loaded from.
    hf, wp = pair_of(name)
    texts = TEXTS[::2] + ADVERSARIAL + AIMED
    expected = hf.encode_batch(texts)
    expected_pairs = hf.encode_batch(PAIRS[::3])
    written = wp.to_json()
    back = HFTokenizer.from_str(written)
    for text, h, o in zip(texts, expected, back.encode_batch(texts)):
        assert_fields(h, o, (name, text))
    for pair, h, o in zip(PAIRS[::3], expected_pairs, back.encode_batch(PAIRS[::3])):
        assert_fields(h, o, (name, pair))
    for ids in (e.ids for e in expected[::10]):
        assert back.decode(ids) == hf.decode(ids), (name, ids)
        assert back.decode(ids, skip_special_tokens=False) == hf.decode(
            ids, skip_special_tokens=False
        ), (name, ids)
    again = wpiece.Tokenizer.from_str(written)
    for text, h, o in zip(texts, expected, again.encode_batch(texts)):
        assert_fields(h, o, (name, "from_str", text))


@pytest.mark.parametrize("max_length", [0, 1, 2, 3, 4, 6, 9, 15])
@pytest.mark.parametrize("name", POST_NAMES)
def test_truncation_through_post_processor_as_hf(name, max_length) -> None:
    # The special tokens each framing adds are left out of max_length
    # (several for a multi-id token, none without a post-processor).
    hf, wp = pair_of(name)
    singles = LINES[:5] + AIMED[12:17]
    pairs = PAIRS[:2] + [(AIMED[6], AIMED[12]), ("", "a b c d e"), ("a b c d e", "")]
    if name == "post-template-a-twice":
        # A sequence framed twice: its overflowing parts are merged with each
        # other, nested (HF builds 155k encodings for one pair of 20 tokens
        # at max_length 4); short inputs keep this quick.
        singles, pairs = singles[5:], pairs[3:]
    try:
        for stride, direction in [(0, "right"), (1, "left"), (2, "right")]:
            if not set_truncation(hf, wp, max_length, stride=stride, direction=direction):
                continue
            for add in (True, False):
                for text in singles:
                    assert_encode_as_hf(hf, wp, text, None, add)
                for a, b in pairs:
                    assert_encode_as_hf(hf, wp, a, b, add)
    finally:
        hf.no_truncation()
        wp.no_truncation()


@pytest.mark.parametrize("part,named", [("pre_tokenizer", "pre-tokenizer"), ("decoder", "decoder")])
def test_absent_pre_tokenizer_or_decoder_as_hf_or_refused(part, named) -> None:
    # HF runs without them (the whole normalized text one word; decoding
    # joins tokens with spaces). wpiece either does the same or refuses the
    # tokenizer, naming what is missing.
    hf = build()
    setattr(hf, part, None)
    try:
        wp = wpiece.Tokenizer.from_hf(hf)
    except wpiece.UnsupportedComponentError as exc:
        assert named in str(exc)
        return
    texts = TEXTS[:100] + AIMED + ADVERSARIAL
    for text, h, w in zip(texts, hf.encode_batch(texts), wp.encode_batch(texts)):
        assert_fields(h, w, (part, text))
        assert wp.decode(h.ids) == hf.decode(h.ids), (part, text)
    for (a, b), h in zip(PAIRS, hf.encode_batch(PAIRS)):
        assert_fields(h, wp.encode(a, b), (part, a, b))


def test_pipelines_really_differ() -> None:
    # Guard: the components under test change the tokens (a pipeline list
    # that built the same tokenizer over and over would pass vacuously).
    seen = set()
    for name in NAMES:
        encodings = hf_pipeline(name).encode_batch([(t, "x y") for t in AIMED])
        seen.add(tuple((tuple(e.tokens), tuple(e.offsets), tuple(e.type_ids)) for e in encodings))
    assert len(seen) > 0.6 * len(NAMES)


# ----- Hypothesis -------------------------------------------------------------------

PIECES = [
    "the",
    "The",
    "ab",
    "abab",
    "-",
    "--",
    "##",
    "###",
    "##ing",
    "``",
    "''",
    "[MASK]",
    "[SEP]",
    "[CLS]",
    "[mask]",
    "123",
    "4",
    "٣",
    "①",
    "ﬁ",
    "Ｆｕｌｌ",
    "中",
    "文字",
    "e\u0301",
    "\u0301",
    "Ǆ",
    "İ",
    "ß",
    "\x00",
    "\x07",
    "\u200b",
    "\ufeff",
    " ",
    "  ",
    "\t",
    "\n",
    "\u00a0",
    "\u3000",
    "👍🏽",
    "🇫🇷",
    ".",
    ",",
    "!?",
    "(",
    "x" * 13,
    "y" * 101,
]
text_st = st.lists(
    st.one_of(
        st.sampled_from(PIECES),
        st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=4),
        st.from_regex(r"[a-z]{1,8}", fullmatch=True),
    ),
    max_size=14,
).map("".join)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(25), deadline=None)
@given(text=text_st, pair=st.none() | text_st, add=st.booleans())
def test_hypothesis_per_pipeline(name, text, pair, add) -> None:
    hf, wp = pair_of(name)
    h = hf.encode(text, pair, add_special_tokens=add)
    w = wp.encode(text, pair, add_special_tokens=add)
    assert_fields(h, w, (name, text, pair, add))
    assert wp.decode(h.ids) == hf.decode(h.ids)


@settings(max_examples=examples(60), deadline=None)
@given(
    name=st.sampled_from(NAMES),
    text=text_st,
    pair=st.none() | text_st,
    add=st.booleans(),
    max_length=st.none() | st.integers(0, 16),
    stride=st.integers(0, 4),
    direction=st.sampled_from(["right", "left"]),
    strategy=st.sampled_from(["longest_first", "only_first", "only_second"]),
)
def test_hypothesis_any_pipeline_with_truncation(
    name, text, pair, add, max_length, stride, direction, strategy
) -> None:
    hf, wp = pair_of(name)
    try:
        if max_length is not None:
            kw = {"stride": stride, "direction": direction, "strategy": strategy}
            if not set_truncation(hf, wp, max_length, **kw):
                return
        assert_encode_as_hf(hf, wp, text, pair, add)
        h = _attempt(lambda: hf.encode(text, pair, add_special_tokens=add))[0]
        if h is not None and (max_length is None):
            n_chars = max(len(text), len(pair or ""))
            assert_lookups(h, wp.encode(text, pair, add_special_tokens=add), n_chars, name)
    finally:
        hf.no_truncation()
        wp.no_truncation()


# ----- refused components ------------------------------------------------------------


def _with(**parts: Any) -> HFTokenizer:
    hf = build()
    for attr, value in parts.items():
        setattr(hf, attr, value)
    return hf


@pytest.mark.parametrize(
    "parts,named",
    [
        ({"normalizer": norm.Replace(Regex(r"\s*"), " ")}, "Replace"),
        (
            {"normalizer": norm.Sequence([norm.Lowercase(), norm.Replace(Regex("`*"), '"')])},
            "Replace",
        ),
    ],
    ids=["replace", "replace-in-sequence"],
)
def test_regex_replace_that_may_match_empty_is_refused_naming_the_component(parts, named) -> None:
    # A Replace regex that cannot match empty is supported (test_regex.py);
    # one that may is refused: HF panics on what its empty matches insert.
    hf = _with(**parts)
    assert '"Regex"' in hf.to_str()
    with pytest.raises(wpiece.UnsupportedComponentError, match=named):
        wpiece.Tokenizer.from_hf(hf)
    with pytest.raises(wpiece.UnsupportedComponentError, match=named):
        wpiece.Tokenizer.from_str(hf.to_str())


@pytest.mark.parametrize(
    "parts,named",
    [
        ({"pre_tokenizer": pre.ByteLevel()}, "ByteLevel"),
        ({"pre_tokenizer": pre.Metaspace()}, "Metaspace"),
        ({"pre_tokenizer": pre.UnicodeScripts()}, "UnicodeScripts"),
        ({"pre_tokenizer": pre.Sequence([pre.Whitespace(), pre.ByteLevel()])}, "ByteLevel"),
        ({"normalizer": norm.Nmt()}, "Nmt"),
        ({"normalizer": norm.Sequence([norm.NFC(), norm.Nmt()])}, "Nmt"),
        ({"post_processor": proc.ByteLevel()}, "ByteLevel"),
        ({"post_processor": proc.Sequence([proc.ByteLevel()])}, "ByteLevel"),
        ({"post_processor": proc.Sequence([bert_template(), bert_template()])}, "Sequence of 2"),
        ({"post_processor": proc.Sequence([])}, "Sequence of 0"),
        ({"decoder": dec.ByteLevel()}, "ByteLevel"),
        ({"decoder": dec.Metaspace()}, "Metaspace"),
        ({"decoder": dec.BPEDecoder()}, "BPEDecoder"),
    ],
    ids=[
        "pre-bytelevel",
        "pre-metaspace",
        "pre-unicode-scripts",
        "pre-bytelevel-in-sequence",
        "norm-nmt",
        "norm-nmt-in-sequence",
        "post-bytelevel",
        "post-bytelevel-in-sequence",
        "post-sequence-of-two",
        "post-sequence-empty",
        "decoder-bytelevel",
        "decoder-metaspace",
        "decoder-bpe",
    ],
)
def test_other_components_are_refused_naming_them(parts, named) -> None:
    hf = _with(**parts)
    with pytest.raises(wpiece.UnsupportedComponentError, match=named):
        wpiece.Tokenizer.from_hf(hf)


def test_template_tokens_named_otherwise_than_the_vocab_show_as_in_hf() -> None:
    # HF shows a template's own strings ("a", "b") for ids 5 and 6, whose vocab
    # strings differ, where the template put them; so does wpiece.
    hf = _with(
        post_processor=template("[X] $A [SEP]", "[X] $A [SEP] $B:1 [X]:1", extra=(MULTI_ID,))
    )
    wp = wpiece.Tokenizer.from_hf(hf)
    for text in ("Hello a b", "", "[SEP] typed"):
        assert_encode_as_hf(hf, wp, text)
        assert_encode_as_hf(hf, wp, text, "a pair b")
    assert wp.encode("x").tokens[:2] == ["a", "b"]


@pytest.mark.parametrize(
    "model,named",
    [
        (lambda: models.BPE(), "BPE"),
        (lambda: models.WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]"), "WordLevel"),
        (lambda: models.Unigram([("[UNK]", 0.0), ("a", -1.0)], 0), "Unigram"),
    ],
    ids=["bpe", "wordlevel", "unigram"],
)
def test_models_other_than_wordpiece_are_refused(model, named) -> None:
    hf = HFTokenizer(model())
    hf.normalizer = norm.BertNormalizer()
    hf.pre_tokenizer = pre.BertPreTokenizer()
    hf.decoder = dec.WordPiece()
    with pytest.raises(wpiece.UnsupportedComponentError, match=named):
        wpiece.Tokenizer.from_hf(hf)
    with pytest.raises(wpiece.UnsupportedComponentError, match=named):
        wpiece.Tokenizer.from_str(hf.to_str())


def test_every_listed_component_is_built() -> None:
    # Guard: the pipelines carry each component type the brief lists.
    kinds: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("type"), str):
                kinds.add(value["type"])
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for name in NAMES:
        hf = hf_pipeline(name)
        for part in (hf.normalizer, hf.pre_tokenizer, hf.post_processor, hf.decoder):
            if part is not None:
                walk(json.loads(part.__getstate__()))
    wanted = {
        "Sequence",
        "BertNormalizer",
        "NFD",
        "NFC",
        "NFKD",
        "NFKC",
        "Lowercase",
        "StripAccents",
        "Strip",
        "Replace",
        "Prepend",
        "BertPreTokenizer",
        "Whitespace",
        "WhitespaceSplit",
        "Punctuation",
        "Digits",
        "Split",
        "CharDelimiterSplit",
        "BertProcessing",
        "TemplateProcessing",
        "WordPiece",
    }
    assert wanted <= kinds, wanted - kinds


def test_bert_options_on_a_chain_are_refused_and_model_options_keep_it(tmp_path) -> None:
    hf = _with(
        normalizer=norm.Sequence([norm.NFD(), norm.StripAccents()]), pre_tokenizer=pre.Whitespace()
    )
    path = tmp_path / "tokenizer.json"
    path.write_text(hf.to_str(), encoding="utf-8")
    with pytest.raises(wpiece.UnsupportedComponentError, match="edit the file"):
        wpiece.Tokenizer.from_file(path, lowercase=False)
    with pytest.raises(wpiece.UnsupportedComponentError, match="edit the file"):
        wpiece.Tokenizer.from_file(path, pre_tokenizer="whitespace")
    tok = wpiece.Tokenizer.from_file(path, max_input_chars_per_word=100)
    text = "Café, naïve-ish 12 words!"
    assert tok.encode(text).ids == hf.encode(text).ids
    assert json.loads(tok.to_json())["normalizer"] == json.loads(hf.to_str())["normalizer"]


def test_the_word_char_table_is_what_hf_whitespace_gives() -> None:
    # src/pre_tokenizers/word_chars.rs is generated from tokenizers by tools/gen_word_chars.py:
    # Rust's Unicode version and Oniguruma's differ on thousands of code points.
    import importlib.util
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("gen", root / "tools" / "gen_word_chars.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    table = (root / "src" / "pre_tokenizers" / "word_chars.rs").read_text(encoding="utf-8")
    rows = [
        (int(a, 16), int(b, 16), {"W": "Word", "S": "Space"}[k])
        for a, b, k in re.findall(r"\(0x([0-9A-F]+), 0x([0-9A-F]+), ([WS])\)", table)
    ]
    assert rows == gen.classes()
    hf = _with(normalizer=None, pre_tokenizer=pre.Whitespace())
    tok = wpiece.Tokenizer.from_hf(hf)
    text = "0\U000323b0 a\u088fb \U00010d30x \u2028y"  # each split otherwise by Rust's tables
    assert tok.encode(text).word_ids == hf.encode(text).word_ids
