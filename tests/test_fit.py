"""Fitting a vocabulary to longest-match encoding (``fit=True``): grown to
twice the size with the score, pruned by exact longest-match costs, then
one growth round (adjacent pairs of the encodings joined) and pruned again.
Checked against the plain reference, for determinism across thread counts,
and for what it is for: fewer tokens on held-out text than the same score
without fitting."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wpiece

from conftest import examples
from reference import fit_reference, prune_reference, train_reference

FIXTURE = Path(__file__).parent / "data" / "en_fixture.txt"


def vocab_list(tok: wpiece.Tokenizer) -> list[str]:
    by_id = {i: t for t, i in tok.get_vocab().items()}
    return [by_id[i] for i in range(len(by_id))]


@settings(max_examples=examples(80), deadline=None)
@given(
    counts=st.dictionaries(
        st.text("abc#", min_size=1, max_size=7), st.integers(1, 40), min_size=1, max_size=10
    ),
    size=st.integers(1, 30),
    score=st.sampled_from(["likelihood", "frequency", "wordpiece"]),
    prefix=st.sampled_from(["##", ""]),
)
def test_fitting_matches_the_reference(counts, size, score, prefix) -> None:
    kw = {"continuing_subword_prefix": prefix, "special_tokens": ["[UNK]"], "score": score}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vocab_list(wpiece.train_from_counts(counts, size, fit=True, **kw))
        grown = vocab_list(wpiece.train_from_counts(counts, 2 * size, **kw))
    items = list(counts.items())
    assert grown == train_reference(items, 2 * size, ["[UNK]"], prefix=prefix, score=score)
    base = 1 + len({ch if k == 0 else prefix + ch for w in counts for k, ch in enumerate(w)})
    assert got == fit_reference(items, grown, base, size, prefix=prefix)


@pytest.mark.parametrize(
    "counts, size",
    [
        ({"abcd": 9, "abce": 4, "ab": 1, "bcde": 3}, 12),
        # The growth round joins the whole word "cacdadd".
        ({"cacdadd": 11, "acdcabd": 17}, 9),
    ],
)
def test_the_removed_tokens_are_recorded(counts, size) -> None:
    tok = wpiece.train_from_counts(counts, size, fit=True, special_tokens=["[UNK]"])
    grown = vocab_list(wpiece.train_from_counts(counts, 2 * size, special_tokens=["[UNK]"]))
    vocab = vocab_list(tok)
    removed = [t for t, _ in tok.training_record.removed]
    assert len(tok) == size and sorted(removed) == sorted(set(grown) - set(vocab))
    # Tokens the growth joined come last.
    joined = [t for t in vocab if t not in grown]
    assert vocab == [t for t in vocab if t in grown] + joined


def test_the_growth_round_lowers_the_objective() -> None:
    # Pruning alone leaves "cacdadd" in two tokens; the growth round's pair
    # joins it whole, and the objective (tokens over the training words)
    # falls: the vocabulary fitted is not only the pruned one.
    counts = {"cacdadd": 11, "acdcabd": 17}
    kw = {"special_tokens": ["[UNK]"]}
    grown = vocab_list(wpiece.train_from_counts(counts, 18, **kw))
    fitted = vocab_list(wpiece.train_from_counts(counts, 9, fit=True, **kw))
    base = 1 + len({ch if k == 0 else "##" + ch for w in counts for k, ch in enumerate(w)})
    pruned = prune_reference(list(counts.items()), grown, base, 9)
    assert "cacdadd" in fitted and "cacdadd" not in grown + pruned

    def objective(vocab: list[str]) -> int:
        tok = wpiece.Tokenizer(vocab)
        return sum(c * len(tok.encode(w, add_special_tokens=False).ids) for w, c in counts.items())

    assert objective(fitted) < objective(pruned)


@pytest.fixture(scope="module")
def split_fixture() -> tuple[list[str], list[str]]:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    cut = len(lines) * 4 // 5
    return lines[:cut], lines[cut:]


def test_the_same_vocabulary_at_any_thread_count(split_fixture) -> None:
    train, _ = split_fixture
    one = wpiece.train_from_iterator(train, 2000, fit=True, num_threads=1)
    two = wpiece.train_from_iterator(train, 2000, fit=True, num_threads=2)
    assert vocab_list(one) == vocab_list(two)


@pytest.mark.parametrize("score", ["likelihood", "frequency"])
@pytest.mark.parametrize("size", [2000, 6000])
def test_fitted_vocabularies_encode_held_out_text_in_fewer_tokens(
    split_fixture, score: str, size: int
) -> None:
    train, held = split_fixture
    plain = wpiece.train_from_iterator(train, size, score=score)
    fitted = wpiece.train_from_iterator(train, size, score=score, fit=True)
    assert len(fitted) == len(plain) == size
    p, f = plain.stats(held), fitted.stats(held)
    assert f.tokens_per_word < p.tokens_per_word
    assert f.whole_word_rate >= p.whole_word_rate


def test_the_record_gives_what_the_fitted_vocabulary_does_to_the_training_text(
    split_fixture,
) -> None:
    # Its curve ends where the merges went, twice the size: the CLI said
    # "1.598 tokens/word at 1,200" for a 600-token vocabulary (1.740).
    train, _ = split_fixture
    fitted = wpiece.train_from_iterator(train, 600, fit=True)
    record = fitted.training_record
    stats = fitted.stats(train)
    assert record.fitted_tokens_per_word() == pytest.approx(stats.tokens / stats.words, rel=1e-12)
    assert record.tokens_per_word()[-1][0] > len(fitted)  # the merges grew past it
    assert wpiece.train_from_iterator(train, 600).training_record.fitted_tokens_per_word() is None
    assert wpiece.TrainingRecord.from_dict(record.to_dict()) == record


def test_the_cli_fits_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from wpiece.cli import main

    out = tmp_path / "tok"
    args = ["train", str(FIXTURE), "--vocab-size", "3000", "--fit", "-o", str(out)]
    assert main([*args, "--no-progress"]) == 0
    saved = wpiece.Tokenizer.from_file(out)
    assert vocab_list(saved) == vocab_list(wpiece.train(FIXTURE, 3000, fit=True))
    record = wpiece.TrainingRecord.load(out / "training_record.json")
    assert len(record.removed) > 0
    fitted = record.fitted_tokens_per_word()
    assert fitted is not None
    assert (
        f"fitted: {fitted:.3f} tokens/word by longest match at 3,000 tokens"
        in capsys.readouterr().out
    )


def test_fitting_an_extension_keeps_every_old_id(split_fixture) -> None:
    train, held = split_fixture
    base = wpiece.train_from_iterator(train[:2000], 1500)
    plain = wpiece.train_from_iterator(train, 2500, initial=base)
    fitted = wpiece.train_from_iterator(train, 2500, initial=base, fit=True)
    assert len(fitted) == 2500 and vocab_list(fitted)[:1500] == vocab_list(base)
    assert fitted.training_record.added_ids == 1000
    assert fitted.stats(held).tokens_per_word <= plain.stats(held).tokens_per_word
