"""Training through a tokenizer.json's own pipeline (issue 16, item 4): words
are counted with its normalizers and pre-tokenizers, the trained tokenizer
keeps every component, and the file it saves loads in HF with identical ids."""

from __future__ import annotations

import json
import re

import pytest
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders, models, processors
from tokenizers import normalizers as norm
from tokenizers import pre_tokenizers as pre

import wpiece

from adversarial import ADVERSARIAL
from conftest import EN_FIXTURE, TOKENIZER_JSON

SPECIALS = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]


def pipeline(normalizer, pre_tokenizer) -> HFTokenizer:
    hf = HFTokenizer(models.WordPiece({t: i for i, t in enumerate(SPECIALS)}, unk_token="[UNK]"))
    if normalizer is not None:
        hf.normalizer = normalizer
    hf.pre_tokenizer = pre_tokenizer
    hf.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 1), ("[SEP]", 2)],
    )
    hf.decoder = decoders.WordPiece()
    hf.add_special_tokens(SPECIALS)
    return hf


PIPELINES = {
    "docs": (
        norm.Sequence([norm.NFD(), norm.Lowercase(), norm.StripAccents()]),
        pre.Whitespace(),
    ),
    "nfkc_digits": (
        norm.NFKC(),
        pre.Sequence(
            [pre.WhitespaceSplit(), pre.Punctuation(), pre.Digits(individual_digits=True)]
        ),
    ),
    "split": (
        norm.Sequence([norm.Strip(), norm.Replace("``", '"'), norm.Lowercase()]),
        pre.Sequence([pre.Split("-", "isolated"), pre.Whitespace()]),
    ),
}


@pytest.fixture(scope="module")
def corpus() -> tuple[list[str], list[str]]:
    lines = EN_FIXTURE.read_text(encoding="utf-8").splitlines()
    return lines[:4000] + list(ADVERSARIAL), lines[6000:7000]


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_words_are_counted_through_the_pipeline(name, corpus) -> None:
    train, _ = corpus
    hf = pipeline(*PIPELINES[name])
    new = wpiece.Tokenizer.from_hf(hf).train_new_from_iterator(train, 1500)
    # Every word HF's normalizer and pre-tokenizer give, counted once each
    # time, the special tokens cut out first as encoding cuts them out (HF's
    # trainer counts them as text: a difference on purpose, see README).
    specials = re.compile("|".join(map(re.escape, sorted(SPECIALS, key=len, reverse=True))))
    expected = 0
    alphabet = set()
    for text in train:
        for piece in filter(None, specials.split(text)):
            normalized = hf.normalizer.normalize_str(piece)
            words = [w for w, _ in hf.pre_tokenizer.pre_tokenize_str(normalized)]
            expected += len(words)
            alphabet.update(w[0] for w in words)
    assert new.training_record.total_words == expected
    vocab = new.get_vocab()
    assert alphabet <= set(vocab), sorted(alphabet - set(vocab))[:10]
    assert [t for t, i in sorted(vocab.items(), key=lambda x: x[1])][:5] == SPECIALS


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_trained_pipeline_saves_a_file_hf_and_transformers_load_identically(
    name, corpus, tmp_path
) -> None:
    train, held = corpus
    hf = pipeline(*PIPELINES[name])
    new = wpiece.Tokenizer.from_hf(hf).train_new_from_iterator(train, 2000)
    new.enable_truncation(24, stride=4, direction="left")
    path = tmp_path / "tokenizer.json"
    new.save(path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["normalizer"] == json.loads(hf.to_str())["normalizer"]
    assert saved["pre_tokenizer"] == json.loads(hf.to_str())["pre_tokenizer"]
    assert saved["post_processor"]["type"] == "TemplateProcessing"
    back = HFTokenizer.from_file(str(path))
    texts = held + list(ADVERSARIAL)
    for b, w, t in zip(back.encode_batch(texts), new.encode_batch(texts), texts):
        assert w.ids == b.ids, t
        assert w.offsets == b.offsets, t
        assert w.word_ids == b.word_ids, t
        assert [o.ids for o in w.overflowing] == [o.ids for o in b.overflowing], t
    pair = back.encode(held[0], held[1])
    assert new.encode(held[0], held[1]).type_ids == pair.type_ids
    from transformers import PreTrainedTokenizerFast

    tf = PreTrainedTokenizerFast(tokenizer_file=str(path))
    new.no_truncation()  # transformers sets truncation per call
    assert tf(held[:20])["input_ids"] == [e.ids for e in new.encode_batch(held[:20])]


def test_the_trained_vocab_compresses_held_out_text_like_hf_on_the_same_pipeline(
    corpus,
) -> None:
    from tokenizers import trainers

    train, held = corpus
    hf = pipeline(*PIPELINES["docs"])
    new = wpiece.Tokenizer.from_hf(hf).train_new_from_iterator(train, 3000)
    hf.train_from_iterator(
        train, trainers.WordPieceTrainer(vocab_size=3000, special_tokens=SPECIALS)
    )
    ours = sum(len(e.ids) for e in new.encode_batch(held, add_special_tokens=False))
    theirs = sum(len(e.ids) for e in hf.encode_batch(held, add_special_tokens=False))
    # HF's WordPiece trainer is BPE underneath; the likelihood score lands within a few percent.
    assert ours <= 1.05 * theirs, (ours, theirs)


def test_options_the_pipeline_fixes_are_refused(corpus) -> None:
    tok = wpiece.Tokenizer.from_hf(pipeline(*PIPELINES["docs"]))
    for option in ["lowercase", "pre_tokenizer", "unk_token", "continuing_subword_prefix"]:
        with pytest.raises(TypeError, match=option):
            tok.train_new_from_iterator(corpus[0][:10], 100, **{option: "x"})
    with pytest.raises(TypeError):
        tok.train_new_from_iterator("one string is not a corpus", 100)
    with pytest.raises(ValueError, match="not in the new vocabulary"):
        tok.train_new_from_iterator(corpus[0][:50], 200, special_tokens=["[UNK]"])


def test_the_bert_pipeline_trains_through_the_fast_counter_the_same(corpus) -> None:
    train, held = corpus
    base = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    new = base.train_new_from_iterator(train, 1500)
    # Through the pipeline its special tokens are cut out, never counted:
    # as a space in their place for BERT's options.
    specials = re.compile("|".join(map(re.escape, new.settings["special_tokens"])))
    cut = [specials.sub(" ", t) for t in train]
    direct = wpiece.train_from_iterator(cut, 1500, special_tokens=new.settings["special_tokens"])
    assert new.get_vocab().keys() == direct.get_vocab().keys()
    assert [e.ids for e in new.encode_batch(held)] == [e.ids for e in direct.encode_batch(held)]


def test_counting_through_added_tokens_keeps_first_appearance_order_across_blocks(
    tmp_path,
) -> None:
    # Every document holds an added token, so it is counted through the
    # tokenizer's own path; a .gz file is read in blocks (1 MiB first, then
    # doubling), each cut into one part per thread. Words new in the last
    # documents of a part must keep their place against the next part's:
    # the order training breaks ties by.
    import gzip
    import random

    rng = random.Random(5)
    lines = []
    for _ in range(60_000):
        words = [f"w{rng.randrange(200_000)}x" for _w in range(rng.randrange(1, 12))]
        words.insert(rng.randrange(len(words) + 1), "[SPECIAL]")
        lines.append(" ".join(words))
    path = tmp_path / "docs.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    assert path.stat().st_size < 4 << 20 and sum(map(len, lines)) > 3 << 20
    tok = wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    tok.add_tokens(["[SPECIAL]"])
    one = wpiece.count_words(path, tokenizer=tok, num_threads=1).items()
    two = wpiece.count_words(path, tokenizer=tok, num_threads=2).items()
    assert len(one) > 100_000 and "[special]" not in dict(one)
    assert two == one
