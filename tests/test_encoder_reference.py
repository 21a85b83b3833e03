"""The trie encoder and pipeline against the plain reference in `reference.py`."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import wpiece

from conftest import VOCAB_TXT, examples
from reference import bert_tokenize, wordpiece_word

LETTERS = "abcé中#"
piece = st.text(alphabet=LETTERS, min_size=1, max_size=4)


@st.composite
def vocab_and_words(draw):
    prefix = draw(st.sampled_from(["##", "", "@@", "#"]))
    starts = draw(st.lists(piece, max_size=12))
    conts = draw(st.lists(piece, max_size=12))
    tokens = ["[UNK]"] + starts + [prefix + c for c in conts]
    vocab = list(dict.fromkeys(tokens))
    words = draw(st.lists(st.text(alphabet=LETTERS, min_size=1, max_size=12), max_size=6))
    max_chars = draw(st.integers(min_value=1, max_value=14))
    return prefix, vocab, words, max_chars


@settings(max_examples=examples(500), deadline=None)
@given(data=vocab_and_words(), per_char=st.booleans())
def test_trie_encoder_equals_reference(data, per_char) -> None:
    prefix, vocab, words, max_chars = data
    tok = wpiece.Tokenizer(
        vocab,
        continuing_subword_prefix=prefix,
        max_input_chars_per_word=max_chars,
        unknown="char" if per_char else "word",
        normalize=False,
        pre_tokenizer="whitespace",
        special_tokens=[],
    )
    vocab_set = set(vocab)
    expected = [
        p for w in words for p in wordpiece_word(w, vocab_set, "[UNK]", prefix, max_chars, per_char)
    ]
    assert tok.tokenize(" ".join(words)) == expected


# Characters whose Unicode properties are stable across Unicode versions, so
# Python's `unicodedata` and the Rust tables agree on them.
stable_text = st.text(
    alphabet=st.sampled_from(
        list("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 .,;:!?'\"()-$#@[]")
        + list("éèüñçÅÉÜß")
        + ["\u0301", "\u0308", "\t", "\n", "\u00a0", "\u3000", "\u200b"]
        + list("中文字日本語한국어Привет")
    ),
    max_size=80,
)


@settings(max_examples=examples(300), deadline=None)
@given(text=stable_text, lowercase=st.booleans())
def test_pipeline_equals_reference_bert(text, lowercase) -> None:
    tok = _bert(lowercase)
    assert tok.tokenize(text) == bert_tokenize(text, _VOCAB, lowercase)


_VOCAB = set(VOCAB_TXT.read_text(encoding="utf-8").splitlines())
_TOKS: dict[bool, wpiece.Tokenizer] = {}


def _bert(lowercase: bool) -> wpiece.Tokenizer:
    if lowercase not in _TOKS:
        _TOKS[lowercase] = wpiece.Tokenizer.from_file(VOCAB_TXT, lowercase=lowercase)
    return _TOKS[lowercase]
