"""Quality measured where users feel it: Tokenizer.stats, held-out curves,
and the likelihood score's vocabularies against HF's trainer on real text."""

from __future__ import annotations

import warnings

import pytest
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, normalizers, pre_tokenizers, trainers

import wpiece

from conftest import EN_FIXTURE, VOCAB_TXT
from reference import bert_words, wordpiece_word

LINES = EN_FIXTURE.read_text(encoding="utf-8").splitlines()
TRAIN, HELD = LINES[: len(LINES) * 9 // 10], LINES[len(LINES) * 9 // 10 :]


def reference_stats(texts: list[str], vocab: list[str]) -> tuple[int, int, int, int, int]:
    """words, tokens, chars, whole words, unknown words, by the plain encoder."""
    vs = set(vocab)
    words = tokens = chars = whole = unknown = 0
    for t in texts:
        for w in bert_words(t):
            pieces = wordpiece_word(w, vs)
            words += 1
            tokens += len(pieces)
            chars += len(w)
            whole += len(pieces) == 1 and pieces != ["[UNK]"]
            unknown += "[UNK]" in pieces
    return words, tokens, chars, whole, unknown


def test_stats_equal_the_plain_encoder_on_real_text() -> None:
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    vocab = list(tok.get_vocab())
    texts = HELD + ["naïve Ünïcode 東京 \u00e9t\u00e9 ￼ \x00 " + "x" * 120]
    s = tok.stats(texts)
    assert (s.words, s.tokens, s.chars, s.whole_words, s.unknown_words) == reference_stats(
        texts, vocab
    )
    # And the token count is what encode gives.
    assert s.tokens == sum(len(e) for e in tok.encode_batch(texts, add_special_tokens=False))
    assert tok.stats(texts, num_threads=1) == s
    assert 1.0 < s.tokens_per_word < 1.3 and s.unknown_rate < 0.01
    assert s.to_dict()["tokens_per_word"] == s.tokens_per_word


def test_stats_of_nothing_and_bad_input() -> None:
    tok = wpiece.Tokenizer.from_file(VOCAB_TXT)
    empty = tok.stats([])
    assert (empty.words, empty.tokens_per_word, empty.unknown_rate) == (0, 0.0, 0.0)
    assert tok.stats("one string") == tok.stats(["one string"])
    with pytest.raises(TypeError):
        tok.stats([b"bytes"])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        tok.stats(["a"], num_threads=0)


def test_held_out_documents_are_an_exact_even_fraction_left_out_of_training() -> None:
    docs = [f"doc{i} word{i % 7}" for i in range(1000)]
    tok = wpiece.train_from_iterator(docs, 60, held_out=0.1, special_tokens=["[UNK]"])
    held = [d for i, d in enumerate(docs) if (i + 1) // 10 > i // 10]
    rest = [d for d in docs if d not in held]
    assert len(held) == 100
    alone = wpiece.train_from_iterator(rest, 60, special_tokens=["[UNK]"])
    assert tok.get_vocab() == alone.get_vocab()
    rec = tok.training_record
    assert rec.held_out_fraction == 0.1 and rec.held_out_words == 200
    last = rec.held_out[-1]
    s = tok.stats(held)
    assert last.vocab_size == len(tok) and last.tokens_per_word == s.tokens_per_word
    assert last.whole_word_rate == s.whole_word_rate and last.unknown_rate == s.unknown_rate


def test_held_out_curve_cuts_the_vocab_at_each_size(tmp_path) -> None:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(LINES), encoding="utf-8")
    tok = wpiece.train(path, 3000, held_out=0.1)
    rec = tok.training_record
    sizes = [p.vocab_size for p in rec.held_out]
    assert sizes[0] == rec.base_vocab_size and sizes[-1] == 3000 and sizes == sorted(set(sizes))
    held = [d for i, d in enumerate(LINES) if (i + 1) // 10 > i // 10]
    for p in rec.held_out[::8]:
        cut = wpiece.Tokenizer(list(tok.get_vocab())[: p.vocab_size])
        assert cut.stats(held).tokens_per_word == p.tokens_per_word
    # Same split and vocab from the files path and the iterator path.
    it = wpiece.train_from_iterator(LINES, 3000, held_out=0.1)
    assert it.get_vocab() == tok.get_vocab() and it.training_record.held_out == rec.held_out
    tok.save(tmp_path / "out")
    loaded = wpiece.TrainingRecord.load(tmp_path / "out" / "training_record.json")
    assert loaded == rec


@pytest.mark.parametrize("bad", [-0.1, 1.0, 2, float("nan")])
def test_held_out_must_be_a_fraction(bad) -> None:
    with pytest.raises(ValueError, match="held_out"):
        wpiece.train_from_iterator(["a b"], 10, held_out=bad)


def test_held_out_refuses_other_types() -> None:
    with pytest.raises(TypeError, match="held_out"):
        wpiece.train_from_iterator(["a b"], 10, held_out="1%")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="held_out"):
        wpiece.train_from_iterator(["a b"], 10, held_out=True)


def test_a_warning_when_most_early_merges_join_pairs_seen_once() -> None:
    with pytest.warns(UserWarning, match="pairs seen once.*'wordpiece' score"):
        wpiece.train_from_iterator(TRAIN, 3000, score="wordpiece")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        wpiece.train_from_iterator(TRAIN, 3000)


def hf_trained(texts: list[str], vocab_size: int) -> wpiece.Tokenizer:
    hf = HFTokenizer(models.WordPiece(unk_token="[UNK]"))
    hf.normalizer = normalizers.BertNormalizer(lowercase=True)
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size,
        special_tokens=list(wpiece.BERT_SPECIAL_TOKENS),
        show_progress=False,
    )
    hf.train_from_iterator(texts, trainer)
    return wpiece.Tokenizer([t for t, _ in sorted(hf.get_vocab().items(), key=lambda x: x[1])])


@pytest.mark.parametrize("vocab_size", [2000, 6000])
def test_default_training_encodes_held_out_text_as_compactly_as_hf(vocab_size) -> None:
    # The target on the repo's fixture: held-out tokens per word at
    # most 1.05x HF WordPieceTrainer's, words kept whole at least ~HF's share.
    ours = wpiece.train_from_iterator(TRAIN, vocab_size).stats(HELD)
    theirs = hf_trained(TRAIN, vocab_size).stats(HELD)
    with pytest.warns(UserWarning, match="pairs seen once"):
        textbook = wpiece.train_from_iterator(TRAIN, vocab_size, score="wordpiece")
    textbook_stats = textbook.stats(HELD)
    assert ours.tokens_per_word <= 1.05 * theirs.tokens_per_word
    assert ours.whole_word_rate >= 0.97 * theirs.whole_word_rate
    assert textbook_stats.tokens_per_word > 1.3 * theirs.tokens_per_word
