"""Documents past the piece size (256 KiB) are counted and encoded in pieces
cut where the pipeline splits anyway; the result must be HF's on the whole
document: ids, offsets and word ids, and word counts, with words and
multi-byte chars straddling every piece boundary. Hypothesis builds each
document from a random unit repeated past the piece size (so units of every
length put every kind of char at the boundaries)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

import wpiece

from conftest import examples, hf_bert, wp_bert

PIECE = 256 << 10

# Spaces and newlines (cuts), ideographs (cuts before them), accents and
# combining marks, punctuation, controls, a long word, and added tokens.
ALPHABET = list("ab Z\n\t,.!#") + [
    "東",
    "京",
    "é",
    "e\u0301",
    "\u0301",
    "ß",
    "\u3000",
    "\u00a0",
    "\x07",
    "<ent>",
    "[MASK]",
    "x" * 120,
]

unit = st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=40).map("".join)


def long(u: str) -> str:
    return u * (PIECE // len(u.encode()) + 2)


def tokenizers(lowercase: bool, added: bool) -> tuple[Any, wpiece.Tokenizer]:
    hf, tok = hf_bert(lowercase), wp_bert(lowercase)
    if added:
        for t in (hf, tok):
            t.add_tokens(["<ent>"])
    return hf, tok


@settings(max_examples=examples(8), deadline=None)
@given(u=unit, lowercase=st.booleans(), added=st.booleans())
def test_a_long_document_encodes_as_hf_encodes_it_whole(
    u: str, lowercase: bool, added: bool
) -> None:
    hf, tok = tokenizers(lowercase, added)
    doc = long(u)
    want = hf.encode(doc)
    got = tok.encode(doc)
    assert got.ids == want.ids
    assert got.offsets == want.offsets
    assert got.word_ids == want.word_ids
    ids, rows, offsets = tok.encode_batch_flat([doc, u], return_offsets=True)
    assert ids[rows[0] : rows[1]].tolist() == want.ids
    assert [tuple(o) for o in offsets[rows[0] : rows[1]].tolist()] == want.offsets
    assert tok.encode_arrow(pa.array([u, doc])).to_pylist()[1] == want.ids


@settings(max_examples=examples(8), deadline=None)
@given(u=unit, lowercase=st.booleans())
def test_a_long_document_counts_the_words_hf_splits(u: str, lowercase: bool) -> None:
    hf, _ = tokenizers(lowercase, False)
    doc = long(u)
    normalized = hf.normalizer.normalize_str(doc)
    want = Counter(w for w, _ in hf.pre_tokenizer.pre_tokenize_str(normalized))
    got = wpiece.count_words([doc], lowercase=lowercase, num_threads=1)
    assert dict(got.items()) == dict(want)
    # First-appearance order too: the words of the first unit come first.
    assert list(dict(got.items())) == list(dict.fromkeys(w for w in want))
