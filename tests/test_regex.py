"""`Split` with a `Regex` pattern, matched by Oniguruma as HF matches it:
every behavior, inverted or not, on patterns with classes, alternations,
case folding, word boundaries and empty matches, compared with `tokenizers`
on real, adversarial and Hypothesis text. A regex HF cannot compile is
refused by name. (`Replace` with a regex stays refused: HF panics on the
insertions its empty matches make at the end of a text.)"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hf_compare import assert_encode_as_hf
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex
from tokenizers import Tokenizer as HFTokenizer
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
