"""pytest-benchmark cases: `pytest benches/test_bench.py` (needs the bench extra).

Peers run in the same session on the same data, so their ratios are comparable;
absolute times on a shared machine are not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import wpiece

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
LINES = (DATA / "en_fixture.txt").read_text(encoding="utf-8").splitlines()


@pytest.mark.benchmark(group="encode 1 MB")
def test_encode_wpiece(benchmark) -> None:
    tok = wpiece.Tokenizer.from_file(DATA / "vocab.txt")
    ids, _ = benchmark(tok.encode_batch_flat, LINES)
    assert ids.size > 200_000


@pytest.mark.benchmark(group="encode 1 MB")
def test_encode_hf(benchmark) -> None:
    from tokenizers import BertWordPieceTokenizer

    tok = BertWordPieceTokenizer(str(DATA / "vocab.txt"))
    out = benchmark(tok.encode_batch, LINES)
    assert len(out) == len(LINES)


@pytest.mark.benchmark(group="encode 1 MB")
def test_encode_nanotoken(benchmark) -> None:
    import nanotoken  # the bench extra

    tok = nanotoken.Tokenizer.from_vocab(str(DATA / "vocab.txt"))
    out = benchmark(tok.encode_batch, LINES)
    assert len(out) == len(LINES)


@pytest.mark.benchmark(group="train 1 MB, vocab 8000")
def test_train_wpiece(benchmark) -> None:
    tok = benchmark(wpiece.train, DATA / "en_fixture.txt", 8000)
    assert len(tok) == 8000


@pytest.mark.benchmark(group="train 1 MB, vocab 8000")
def test_train_hf(benchmark) -> None:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    def run() -> int:
        tk = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tk.normalizer = normalizers.BertNormalizer(lowercase=True)
        tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        trainer = trainers.WordPieceTrainer(
            vocab_size=8000, special_tokens=special, show_progress=False
        )
        tk.train([str(DATA / "en_fixture.txt")], trainer)
        return tk.get_vocab_size()

    assert benchmark(run) == 8000


# Two tokenizers used in turn on short texts (a query's and a document's, or
# two models served by one process): each thread keeps the word caches of
# its last few models, so neither call copies its model's cache again.
TEXTS_IN_TURN = LINES[:1000]


@pytest.mark.benchmark(group="two tokenizers in turn, 1000 texts each")
def test_in_turn_wpiece(benchmark) -> None:
    a, b = (wpiece.Tokenizer.from_file(DATA / "tokenizer.json") for _ in range(2))
    for tok in (a, b):  # as HF's below: raw ids
        tok.no_truncation()
        tok.no_padding()

    def run() -> int:
        return sum(len(a.encode(t).ids) + len(b.encode(t).ids) for t in TEXTS_IN_TURN)

    assert benchmark(run) > 2 * len(TEXTS_IN_TURN)


@pytest.mark.benchmark(group="two tokenizers in turn, 1000 texts each")
def test_in_turn_hf(benchmark) -> None:
    from tokenizers import Tokenizer

    a, b = (Tokenizer.from_file(str(DATA / "tokenizer.json")) for _ in range(2))
    for tok in (a, b):
        tok.no_truncation()
        tok.no_padding()

    def run() -> int:
        return sum(len(a.encode(t).ids) + len(b.encode(t).ids) for t in TEXTS_IN_TURN)

    assert benchmark(run) > 2 * len(TEXTS_IN_TURN)
