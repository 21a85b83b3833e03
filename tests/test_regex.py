"""`Split` with a `Regex` pattern, matched by Oniguruma as HF matches it:
every behavior, inverted or not, on patterns with classes, alternations,
case folding, word boundaries and empty matches, compared with `tokenizers`
on real, adversarial and Hypothesis text. A regex HF cannot compile is
refused by name. `Replace` with a regex that cannot match an empty string
(anchors, boundaries and lookarounds around what must match a char
included) is exact too; one that may is refused by name (HF panics, in some pipelines, on
the text its empty matches insert, e.g. `a*` on "ba" before BertPreTokenizer)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hf_compare import assert_encode_as_hf
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import normalizers as norm
from tokenizers import pre_tokenizers as pre

import wpiece

from adversarial import ADVERSARIAL
from conftest import TOKENIZER_JSON

PATTERNS = [
    r"\s+",
    r"\d",
    r"\p{P}",
    r"[a-z]+",
    r"(?i)the",
    r"\w+|[^\w\s]+",
    r"'s|'t|'re|'ve|'m|'ll|'d",
    r"\b",
    r"a*",
    r"(?<=a)b",
    r"\X",
]
BEHAVIORS = ["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"]
TEXTS = [
    "Hello, world! Isn't this unaffable? It's 2024-11-24.",
    "the THE The tHe",
    "aaab ab b a",
    "",
    "   ",
    *ADVERSARIAL,
]


def both(pattern: str, behavior: str, invert: bool) -> tuple[HFTokenizer, wpiece.Tokenizer]:
    d: dict[str, Any] = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    d["truncation"] = d["padding"] = None
    hf = HFTokenizer.from_str(json.dumps(d))
    hf.pre_tokenizer = pre.Split(Regex(pattern), behavior, invert=invert)
    return hf, wpiece.Tokenizer.from_str(hf.to_str())


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("behavior", BEHAVIORS)
def test_regex_split_as_hf(pattern: str, behavior: str) -> None:
    for invert in (False, True):
        hf, wp = both(pattern, behavior, invert)
        for text in TEXTS:
            assert_encode_as_hf(hf, wp, text, lookups=True)
        assert json.loads(wp.to_json())["pre_tokenizer"] == json.loads(hf.to_str())["pre_tokenizer"]


def test_regex_split_in_a_sequence_and_through_training() -> None:
    d: dict[str, Any] = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    d["truncation"] = d["padding"] = None
    hf = HFTokenizer.from_str(json.dumps(d))
    hf.pre_tokenizer = pre.Sequence(
        [pre.WhitespaceSplit(), pre.Split(Regex(r"\d+|\p{P}"), "isolated")]
    )
    wp = wpiece.Tokenizer.from_str(hf.to_str())
    for text in TEXTS:
        assert_encode_as_hf(hf, wp, text)
    trained = wp.train_new_from_iterator(TEXTS * 5, 400)
    again = HFTokenizer.from_str(trained.to_json())
    for text in TEXTS:
        assert trained.encode(text).ids == again.encode(text).ids, text


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(PATTERNS),
    st.sampled_from(BEHAVIORS),
    st.booleans(),
    st.text(alphabet=st.sampled_from(list("ab 1,'\u00e9\u4e2dTHE\t")), max_size=16),
)
def test_regex_split_on_any_text(pattern: str, behavior: str, invert: bool, text: str) -> None:
    hf, wp = _cached(pattern, behavior, invert)
    assert_encode_as_hf(hf, wp, text, lookups=True)


_CACHE: dict[tuple[str, str, bool], tuple[HFTokenizer, wpiece.Tokenizer]] = {}


def _cached(pattern: str, behavior: str, invert: bool) -> tuple[HFTokenizer, wpiece.Tokenizer]:
    key = (pattern, behavior, invert)
    if key not in _CACHE:
        _CACHE[key] = both(pattern, behavior, invert)
    return _CACHE[key]


@pytest.mark.parametrize("bad", ["(", "[a-", "*", "(?<x"])
def test_a_regex_hf_cannot_compile_is_refused(bad: str) -> None:
    d: dict[str, Any] = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    d["pre_tokenizer"] = {
        "type": "Split",
        "pattern": {"Regex": bad},
        "behavior": "Isolated",
        "invert": False,
    }
    text = json.dumps(d)
    with pytest.raises(Exception):  # noqa: B017 (tokenizers raises a bare Exception)
        HFTokenizer.from_str(text)
    with pytest.raises(ValueError, match="Regex"):
        wpiece.Tokenizer.from_str(text)


# Replace: patterns that cannot match an empty string, contents that shrink,
# grow, hold spaces or other scripts; with and without a pre-tokenizer.
REPLACE_PATTERNS = [
    r"\s+",
    r"[^\w\s]+",
    r"\d+",
    r"(?i)the",
    r"''|``",
    r"\p{L}{2}",
    r"\X",
    r"é|e\u0301",
    # Zero-width assertions around what must match a char (a Vietnamese
    # tokenizer's slang rules: Replace(Regex(r"\b(ko)\b"), "không")).
    r"\b(ko)\b",
    r"\ba\b",
    r"^\s+",
    r"\s+$",
    r"(?<=\d),(?=\d)",
    r"\Bb\b",
    r"\p{^L}\b",
]
CONTENTS = ["", "-", " ", "  x  ", "中"]


def replacing(
    pattern: str, content: str, pre_tokenized: bool
) -> tuple[HFTokenizer, wpiece.Tokenizer]:
    d: dict[str, Any] = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    d["truncation"] = d["padding"] = None
    hf = HFTokenizer.from_str(json.dumps(d))
    hf.normalizer = norm.Sequence([norm.Replace(Regex(pattern), content), norm.Lowercase()])
    if not pre_tokenized:
        hf.pre_tokenizer = None
    return hf, wpiece.Tokenizer.from_str(hf.to_str())


@pytest.mark.parametrize("pattern", REPLACE_PATTERNS)
@pytest.mark.parametrize("content", CONTENTS)
def test_regex_replace_as_hf(pattern: str, content: str) -> None:
    for pre_tokenized in (True, False):
        hf, wp = replacing(pattern, content, pre_tokenized)
        for text in TEXTS:
            assert_encode_as_hf(hf, wp, text, lookups=True)
        assert json.loads(wp.to_json())["normalizer"] == json.loads(hf.to_str())["normalizer"]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(REPLACE_PATTERNS),
    st.sampled_from(CONTENTS),
    st.booleans(),
    st.text(alphabet=st.sampled_from(list("ab 1,'\u00e9e\u0301\u4e2dTHE\t`ko\n")), max_size=16),
)
def test_regex_replace_on_any_text(
    pattern: str, content: str, pre_tokenized: bool, text: str
) -> None:
    key = ("replace", pattern, content, pre_tokenized)
    if key not in _REPLACE_CACHE:
        _REPLACE_CACHE[key] = replacing(pattern, content, pre_tokenized)
    hf, wp = _REPLACE_CACHE[key]
    assert_encode_as_hf(hf, wp, text, lookups=True)


_REPLACE_CACHE: dict[tuple[str, str, str, bool], tuple[HFTokenizer, wpiece.Tokenizer]] = {}


@pytest.mark.parametrize(
    "pattern",
    [
        *("a*", "(?=b)", "(?<=a)", "^", "$", r"\b", "b|", "x?", r"\bx?\b", "^$", r"(a)\1?"),
        # A "[" that opens no class hid the assertions after it (HF panics).
        *(r"\Ka", r"(?#[)\bx?\b", r"\c[|\bx?\b", "(?x)#[\n\\bx?\\b", r"\M-\C-[|(?=a)"),
        r"(?{[})\bx?\b",
    ],
)
def test_a_replace_regex_that_may_match_empty_is_refused(pattern: str) -> None:
    hf, _ = replacing(r"\s+", "-", True)
    hf.normalizer = norm.Replace(Regex(pattern), "-")
    with pytest.raises(wpiece.UnsupportedComponentError, match="may match an empty"):
        wpiece.Tokenizer.from_str(hf.to_str())
