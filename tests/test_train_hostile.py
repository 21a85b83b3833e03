"""The trainer against the plain reference on inputs an attacker would pick:
words that start with the prefix or are made of it, prefix-like strings,
counts of 0 and up to 2^64-1, empty prefixes, end-of-word suffixes and long
words. Plus the regressions of each hole found by hostile testing."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wpiece

from conftest import examples
from reference import train_reference

U64_MAX = 2**64 - 1

# Characters that make prefixes: '#', '@', and letters that are a prefix too.
hostile_words = st.text(alphabet="#@ab", min_size=1, max_size=8)
counts = st.one_of(
    st.integers(min_value=0, max_value=3),
    st.integers(min_value=0, max_value=10**6),
    st.sampled_from([0, 1, 2**32, 2**62, 2**63, U64_MAX]),
)
corpora = st.dictionaries(hostile_words, counts, min_size=1, max_size=8)


def fits(counts: dict[str, int], suffix: str) -> bool:
    """Whether every sum the trainer keeps fits in 64 bits (else OverflowError)."""
    return sum(c * (len(w) + len(suffix)) for w, c in counts.items()) <= U64_MAX


def train(counts, vocab_size, **kw) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tok = wpiece.train_from_counts(
            counts, vocab_size, special_tokens=["[UNK]"], pre_tokenizer="whitespace", **kw
        )
    return list(tok.get_vocab())


@settings(max_examples=examples(400), deadline=None)
@given(
    counts=corpora,
    vocab_size=st.integers(min_value=1, max_value=40),
    prefix=st.sampled_from(["##", "#", "@@", "a", ""]),
    suffix=st.sampled_from(["", "", "#", "_"]),
    score=st.sampled_from(["likelihood", "wordpiece", "frequency"]),
    min_frequency=st.sampled_from([0, 0, 2]),
)
def test_trainer_equals_reference_on_hostile_words(
    counts, vocab_size, prefix, suffix, score, min_frequency
) -> None:
    kw = dict(
        continuing_subword_prefix=prefix,
        end_of_word_suffix=suffix,
        score=score,
        min_frequency=min_frequency,
    )
    if not any(counts.values()):
        with pytest.raises(ValueError, match="no words"):
            train(counts, vocab_size, **kw)
        return
    if not fits(counts, suffix):
        with pytest.raises(OverflowError, match="2\\^64"):
            train(counts, vocab_size, **kw)
        return
    expected = train_reference(
        list(counts.items()),
        vocab_size,
        ["[UNK]"],
        prefix=prefix,
        score=score,
        min_frequency=min_frequency,
        suffix=suffix,
    )
    assert train(counts, vocab_size, **kw) == expected


@settings(max_examples=examples(60), deadline=None)
@given(
    runs=st.lists(
        st.tuples(st.sampled_from("#ab"), st.integers(min_value=1, max_value=40)),
        min_size=1,
        max_size=6,
    ),
    vocab_size=st.integers(min_value=5, max_value=40),
    score=st.sampled_from(["likelihood", "wordpiece"]),
)
def test_long_words_of_repeated_characters(runs, vocab_size, score) -> None:
    # Runs make units paired with themselves, whose merges skip overlaps.
    word = "".join(ch * n for ch, n in runs)
    counts = {word: 3, word[: len(word) // 2] or "a": 2}
    expected = train_reference(list(counts.items()), vocab_size, ["[UNK]"], score=score)
    assert train(counts, vocab_size, score=score) == expected


def test_a_pair_that_dies_and_comes_back_gets_fresh_scores() -> None:
    # The pair dies, comes back, and a later merge changes f of one of its
    # units: its score must follow.
    assert train({"####a": 1, "#": 1, "##a###": 1}, 8, score="wordpiece")[7] == "##a#"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tok = wpiece.train_from_iterator(
            ["####a # ##a###"],
            8,
            special_tokens=["[UNK]"],
            pre_tokenizer="whitespace",
            score="wordpiece",
        )
    assert tok.id_to_token(7) == "##a#"


def test_words_counted_zero_are_left_out() -> None:
    counts = {"xab": 0, "qr": 2, "xa": 2, "zab": 5}
    without = {w: c for w, c in counts.items() if c}
    for score in ("likelihood", "wordpiece", "frequency"):
        got = train(counts, 10, score=score)
        assert got == train(without, 10, score=score)
        assert got == train_reference(list(without.items()), 10, ["[UNK]"], score=score)


@pytest.mark.parametrize(
    "counts",
    [
        {"a" * 20: 10**18, "ab": 1},
        {"ab": 2**63, "ac": 2**63},
        {"ab": U64_MAX, "ac": U64_MAX},
    ],
)
def test_sums_past_64_bits_are_an_overflow_error(counts) -> None:
    with pytest.raises(OverflowError, match="2\\^64"):
        train(counts, 30)


@pytest.mark.parametrize("score", ["likelihood", "wordpiece", "frequency"])
def test_huge_counts_that_fit_train_exactly(score) -> None:
    counts = {"ab": 2**61, "ac": 2**61 - 1, "b": 3, "abab": 2**40, "acb": 1}
    tok = wpiece.train_from_counts(counts, 30, special_tokens=["[UNK]"], score=score)
    expected = train_reference(list(counts.items()), 30, ["[UNK]"], score=score)
    assert list(tok.get_vocab()) == expected
    assert tok.training_record.total_words == 2**62 + 2**40 + 3


def test_counts_past_64_bits_from_python() -> None:
    with pytest.raises(OverflowError):
        train({"ab": 2**64}, 10)
    with pytest.raises(OverflowError):
        wpiece.train_from_counts([("ab", U64_MAX), ("ab", 1)], 10)


@pytest.mark.parametrize("score", ["likelihood", "wordpiece"])
def test_a_long_word_trains_in_time_proportional_to_its_merges(score) -> None:
    # Before the arena, 10^6 characters took minutes (every merge rescanned
    # the word). A guard against quadratic work, not a benchmark: the bound is
    # 20x what it takes here. The letters follow a pseudo-random sequence, so
    # that pairs stay to merge (a periodic word merges into one unit).
    state, letters = 12345, []
    for _ in range(10**6):
        state = (state * 1103515245 + 12345) % 2**31
        letters.append(chr(97 + (state >> 16) % 26))
    word = "".join(letters)
    started = time.monotonic()
    with pytest.warns(UserWarning, match="pairs seen once"):  # random letters: no structure
        tok = wpiece.train_from_counts({word: 1}, 1000, special_tokens=["[UNK]"], score=score)
    assert time.monotonic() - started < 20
    assert len(tok) == 1000


@pytest.mark.parametrize("delay", [2.5, 6.0])
def test_ctrl_c_while_merging(delay: float) -> None:
    # 200,000 distinct words of up to 500 characters: the first merges each
    # touch tens of millions of occurrences (a sort and a pass over stale
    # entries of that size once took a second between two Ctrl-C checks), and
    # the state freed at the end is millions of allocations.
    code = (
        "import sys, time, wpiece\n"
        "words = {'w%d' % i + 'abcdefghij' * (i % 50 + 1): i % 7 + 1 for i in range(200000)}\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    wpiece.train_from_counts(words, 10**6)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', time.monotonic(), flush=True); sys.exit(130)\n"
        "print('finished', flush=True)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    time.sleep(delay)  # into the first merges, then well into merging
    assert child.poll() is None, "training ended before it could be interrupted"
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=300)
    exited = time.monotonic()
    assert child.returncode == 130 and "interrupted" in out, out
    raised = float(out.split()[1])  # CLOCK_MONOTONIC: one clock for both processes
    assert raised - sent < 1.0, f"KeyboardInterrupt {raised - sent:.2f} s after Ctrl-C"
    assert exited - sent < 2.0


@pytest.mark.parametrize(
    "options", [{"special_tokens": ["[UNK]", ""]}, {"unk_token": "", "special_tokens": [""]}]
)
def test_an_empty_special_token_is_refused(options: dict) -> None:
    # It took an id (an empty line in vocab.txt) that no text could match;
    # an empty unk token made unknown words vanish from token strings.
    with pytest.raises(ValueError, match="special_tokens: item . is empty"):
        wpiece.train_from_iterator(["hello world"], vocab_size=40, **options)
