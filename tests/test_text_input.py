"""Python strs in: a str CPython cannot give as UTF-8 (a lone surrogate) is
a UnicodeEncodeError naming the item of a batch, for short strs and for huge
non-ASCII ones (read in slices, so that Ctrl-C is seen between them)."""

from __future__ import annotations

import pytest

import wpiece

from conftest import VOCAB_TXT

# Huge non-ASCII strs are read in slices; the error must still say where.
SURROGATE_TEXTS = {"short": "ab\ud800", "huge": "é" * (17 << 20) + "\ud800"}


@pytest.mark.parametrize("size", list(SURROGATE_TEXTS))
def test_a_text_with_a_lone_surrogate_is_named_with_its_item(size: str) -> None:
    bad = SURROGATE_TEXTS[size]
    t = wpiece.Tokenizer.from_file(VOCAB_TXT)
    calls = {
        "": lambda: t.encode(bad),
        " (item 1 of texts)": lambda: t.encode_batch(["x", bad]),
        " (item 0 of pairs)": lambda: t.encode_batch(["x"], [bad]),
        " (item 2 of texts)": lambda: wpiece.count_words(["a", "b", bad]),
    }
    for suffix, call in calls.items():
        with pytest.raises(UnicodeEncodeError) as caught:
            call()
        assert caught.value.start == len(bad) - 1, suffix
        assert caught.value.reason == "surrogates not allowed" + suffix
