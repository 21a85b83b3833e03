"""The likelihood score: its f64 formula against 60-digit arithmetic, and
training with it against the plain reference (see also test_train*.py)."""

from __future__ import annotations

import math
import warnings
from decimal import Decimal, getcontext

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wpiece

from conftest import EN_FIXTURE, examples
from reference import dh, merge_gain, train_reference

getcontext().prec = 60
U64_MAX = 2**64 - 1


def h(t: int) -> Decimal:
    return Decimal(0) if t == 0 else Decimal(t) * Decimal(t).ln()


def exact_gain(k: int, cx: int, cy: int, cz: int, n: int) -> Decimal:
    """ΔL for distinct x, y, z, straight from the definition."""
    return h(cx - k) - h(cx) + h(cy - k) - h(cy) + h(cz + k) - h(cz) + h(n) - h(n - k)


counts = st.one_of(
    st.integers(min_value=1, max_value=50),
    st.integers(min_value=1, max_value=10**12),
    st.integers(min_value=1, max_value=U64_MAX // 8),
)


@settings(max_examples=examples(3000), deadline=None)
@given(k=counts, extra_x=counts, extra_y=counts, cz=st.one_of(st.just(0), counts), rest=counts)
def test_the_f64_formula_is_within_the_documented_error(k, extra_x, extra_y, cz, rest) -> None:
    # Counts as the trainer sees them: x and y hold the k occurrences, N all.
    cx, cy = k + extra_x - 1, k + extra_y - 1
    n = cx + cy + cz + rest
    if n > U64_MAX:
        return
    got = merge_gain(k, ("x", cx), ("y", cy), ("z", cz), n)
    err = abs(Decimal(got) - exact_gain(k, cx, cy, cz, n))
    # src/train/gain.rs promises k·2^-40 (and slack() covers twice that).
    assert err <= Decimal(k) * Decimal(2) ** -40, (got, err)


def test_coinciding_units_add_their_changes() -> None:
    # x = y: x loses 2k.
    got = merge_gain(3, ("a", 10), ("a", 10), ("aa", 0), 40)
    want = h(4) - h(10) + h(3) + h(40) - h(37)
    assert abs(Decimal(got) - want) < Decimal(1e-12)
    # z = y (x is the prefix string): y is unchanged.
    got = merge_gain(2, ("##", 5), ("##a", 7), ("##a", 7), 30)
    want = h(3) - h(5) + h(30) - h(28)
    assert abs(Decimal(got) - want) < Decimal(1e-12)


def test_no_cancellation_where_the_direct_formula_loses_everything() -> None:
    n = 2**62
    assert -dh(n, -1) == pytest.approx(math.log(n) + 1, rel=1e-12)
    assert math.isfinite(dh(U64_MAX, -(U64_MAX - 1)))


def test_frequent_associated_pairs_go_first() -> None:
    # "th" is frequent and its letters mostly go together; "q"+"##x" is seen
    # once: the textbook score picks the hapax, the likelihood the frequent pair.
    counts = {"the": 50, "that": 30, "this": 20, "qx": 1, "hat": 5, "sit": 5}
    for score, first in (("likelihood", "th"), ("wordpiece", "qx")):
        tok = wpiece.train_from_counts(counts, 30, score=score, special_tokens=["[UNK]"])
        assert tok.training_record.merges[0].merged == first


def test_record_keeps_each_merges_gain() -> None:
    tok = wpiece.train(EN_FIXTURE, 1500)
    merges = tok.training_record.merges
    assert tok.training_record.score == "likelihood"
    assert all(m.score == m.gain for m in merges)
    # The first merge's gain from its own counts (no unit it makes exists yet,
    # and x != y), with N the number of characters before any merge.
    m = merges[0]
    n = tok.training_record.initial_tokens
    assert m.gain == merge_gain(
        m.pair_frequency, (m.left, m.left_frequency), (m.right, m.right_frequency), (m.merged, 0), n
    )
    with pytest.warns(UserWarning, match="pairs seen once"):
        wp = wpiece.train(EN_FIXTURE, 1500, score="wordpiece")
    assert all(m.gain != 0.0 for m in wp.training_record.merges)


@settings(max_examples=examples(150), deadline=None)
@given(
    words=st.dictionaries(
        st.text(alphabet="ab#", min_size=1, max_size=6),
        st.one_of(st.integers(min_value=1, max_value=9), st.sampled_from([2**40, 2**58])),
        min_size=1,
        max_size=10,
    ),
    vocab_size=st.integers(min_value=4, max_value=70),
    prefix=st.sampled_from(["##", "#", ""]),
)
def test_self_pairs_and_prefix_words_against_the_reference(words, vocab_size, prefix) -> None:
    # Runs of one letter make units paired with themselves (k counted without
    # overlap); words of '#' look like units under the prefix.
    expected = train_reference(
        list(words.items()), vocab_size, ["[UNK]"], prefix=prefix, score="likelihood"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tok = wpiece.train_from_counts(
            words,
            vocab_size,
            special_tokens=["[UNK]"],
            continuing_subword_prefix=prefix,
            pre_tokenizer="whitespace",
        )
    assert list(tok.get_vocab()) == expected
