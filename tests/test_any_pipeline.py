"""Any pipeline, everywhere: counting and training through a tokenizer's own
normalizers, pre-tokenizers and added tokens (cut out, never counted), with
the pipeline recorded in saved counts and counts split otherwise refused by
name. Words are compared with HF's own normalizer and pre-tokenizer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import wpiece

from conftest import EN_FIXTURE, TOKENIZER_JSON

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import models, normalizers, pre_tokenizers  # noqa: E402

LINES = EN_FIXTURE.read_text(encoding="utf-8").splitlines()[:3000]
SPECIALS = ["<s>", "</s>", "[X]"]
# Specials inside words and texts, hostile spacing, non-ASCII.
EXTRA = ["<s>Hello</s> wörld", "a[X]b  [X]", "Ünïcode — “quotes” <s><s>", "no specials here"]


def hf_pipeline(kind: str) -> tokenizers.Tokenizer:
    hf = tokenizers.Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    if kind == "sequence":
        hf.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
        hf.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()]
        )
    else:
        hf.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents()])
        hf.pre_tokenizer = pre_tokenizers.Split(
            tokenizers.Regex(r"\w+|[^\w\s]+"), behavior="isolated"
        )
    hf.add_special_tokens(SPECIALS)
    return hf


def words_by_hf(hf: tokenizers.Tokenizer, docs: list[str]) -> list[tuple[str, int]]:
    """Counts by HF's components: raw special tokens cut out, each piece
    normalized and pre-tokenized on its own, first-appearance order."""
    cut = re.compile("|".join(re.escape(t) for t in sorted(SPECIALS, key=len, reverse=True)))
    counts: dict[str, int] = {}
    for doc in docs:
        for piece in cut.split(doc):
            if not piece:
                continue
            normalized = hf.normalizer.normalize_str(piece)
            for word, _ in hf.pre_tokenizer.pre_tokenize_str(normalized):
                counts[word] = counts.get(word, 0) + 1
    return list(counts.items())


@pytest.mark.parametrize("kind", ["sequence", "regex"])
def test_counting_through_a_pipeline_gives_hfs_words(kind: str) -> None:
    hf = hf_pipeline(kind)
    tok = wpiece.Tokenizer.from_str(hf.to_str())
    docs = LINES[:1500] + EXTRA
    assert wpiece.count_words(docs, tokenizer=tok).items() == words_by_hf(hf, docs)
    for threads in (1, 2):
        counts = wpiece.WordCounts(tokenizer=tok, num_threads=threads)
        counts.add_texts(docs)
        assert counts.items() == words_by_hf(hf, docs)


def test_normalized_added_tokens_are_cut_out_after_normalization() -> None:
    hf = hf_pipeline("sequence")
    hf.add_tokens(["covid19"])  # normalized: matches "COVID19" too
    tok = wpiece.Tokenizer.from_str(hf.to_str())
    counts = wpiece.count_words(["COVID19 and covid19 spread", "pre<s>covid19x"], tokenizer=tok)
    assert counts.items() == [("and", 1), ("spread", 1), ("pre", 1), ("x", 1)]


def test_saved_counts_keep_the_pipeline(tmp_path: Path) -> None:
    tok = wpiece.Tokenizer.from_str(hf_pipeline("sequence").to_str())
    counts = wpiece.count_words(LINES, tokenizer=tok)
    counts.save(tmp_path / "c.wpc")
    loaded = wpiece.WordCounts.load(tmp_path / "c.wpc")
    assert loaded == counts and loaded.options["pipeline"] == counts.options["pipeline"]
    # The loaded counts still split as the tokenizer: they merge with fresh ones.
    loaded.update(wpiece.count_words(EXTRA, tokenizer=tok))
    trained = wpiece.train_from_counts(loaded, 600, tokenizer=tok)
    whole = wpiece.train_from_iterator(LINES + EXTRA, 600, tokenizer=tok)
    assert trained.get_vocab() == whole.get_vocab()


def test_counts_split_otherwise_are_refused_naming_the_difference() -> None:
    seq = wpiece.Tokenizer.from_str(hf_pipeline("sequence").to_str())
    regex = wpiece.Tokenizer.from_str(hf_pipeline("regex").to_str())
    counts = wpiece.count_words(LINES[:100], tokenizer=seq)
    refused = "normalizer: the tokenizer's .*NFD.*, the counts' .*NFKC.*; pre_tokenizer"
    with pytest.raises(ValueError, match=refused):
        wpiece.train_from_counts(counts, 600, tokenizer=regex)
    with pytest.raises(ValueError, match="split otherwise: normalizer: these .*NFKC"):
        counts.update(wpiece.count_words(LINES[:10], tokenizer=regex))
    with pytest.raises(ValueError, match="give that tokenizer as tokenizer="):
        wpiece.train_from_counts(counts, 600)
    bert_options = wpiece.count_words(LINES[:100])
    with pytest.raises(ValueError, match="BERT's options, the other through a tokenizer"):
        wpiece.train_from_counts(bert_options, 600, tokenizer=seq)


def test_special_tokens_kept_as_text_are_part_of_the_pipeline(tmp_path: Path) -> None:
    # encode_special_tokens counts "[CLS]" typed in a text as words: counts
    # made so were merged with, and trained, a tokenizer that cuts it out.
    cuts = wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    as_text = wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    as_text.encode_special_tokens = True
    text = ["hello [CLS] world"]
    kept = wpiece.count_words(text, tokenizer=as_text)
    assert dict(kept.items()) == {"hello": 1, "[": 1, "cls": 1, "]": 1, "world": 1}
    with pytest.raises(ValueError, match="encode_special_tokens: these none, the other's true"):
        wpiece.count_words(text, tokenizer=cuts).update(kept)
    kept.save(tmp_path / "kept.wpc")
    loaded = wpiece.WordCounts.load(tmp_path / "kept.wpc")
    with pytest.raises(ValueError, match="encode_special_tokens"):
        wpiece.train_from_counts(loaded, len(cuts) + 10, initial=cuts)
    loaded.add_texts(text)  # counted as the counts file's pipeline counts
    assert dict(loaded.items()) == {"hello": 2, "[": 2, "cls": 2, "]": 2, "world": 2}


def test_every_training_function_takes_a_pipeline(tmp_path: Path) -> None:
    hf = hf_pipeline("regex")
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES + EXTRA) + "\n", encoding="utf-8")
    from_file = wpiece.train(corpus, 700, tokenizer=str(path))
    from_texts = wpiece.train_from_iterator(LINES + EXTRA, 700, tokenizer=str(path))
    from_counts = wpiece.train_from_counts(
        wpiece.count_words(corpus, tokenizer=wpiece.Tokenizer.from_file(path)),
        700,
        tokenizer=wpiece.Tokenizer.from_file(path),
    )
    assert from_file.get_vocab() == from_texts.get_vocab() == from_counts.get_vocab()
    # The result is the pipeline over the new vocabulary, as HF loads it.
    again = tokenizers.Tokenizer.from_str(from_file.to_json())
    for text in EXTRA + LINES[:200]:
        assert from_file.encode(text).ids == again.encode(text).ids
    assert {t: from_file.token_to_id(t) for t in SPECIALS} == {
        t: again.token_to_id(t) for t in SPECIALS
    }


def test_wrong_combinations_are_refused_by_name() -> None:
    tok = wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    with pytest.raises(TypeError, match="takes 'lowercase' from the tokenizer it splits as"):
        wpiece.WordCounts(tokenizer=tok, lowercase=False)
    with pytest.raises(TypeError, match=r"a wpiece.Tokenizer \(load a path with .*from_file"):
        wpiece.WordCounts(tokenizer="tok.json")
    with pytest.raises(TypeError, match="not both"):
        wpiece.train_from_iterator(LINES, 30_600, initial=tok, tokenizer=tok)
    with pytest.raises(TypeError, match="takes 'lowercase' from the tokenizer it trains through"):
        wpiece.train_from_iterator(LINES, 600, tokenizer=tok, lowercase=False)


def test_the_cli_trains_through_a_pipeline(tmp_path: Path) -> None:
    from wpiece.cli import main

    hf = hf_pipeline("sequence")
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    out = tmp_path / "tok"
    args = ["train", str(corpus), "--vocab-size", "600", "--pipeline", str(path), "-o", str(out)]
    assert main([*args, "--no-progress"]) == 0
    expected = wpiece.train_from_iterator(LINES, 600, tokenizer=str(path))
    assert wpiece.Tokenizer.from_file(out).get_vocab() == expected.get_vocab()
