"""Extending a vocabulary (``initial=``, ``wpiece train --extend``): every
token keeps its string and id, new tokens come after, chosen by the same
criterion from the words as the old vocabulary splits them (checked against
the plain reference), and the result is a whole tokenizer HF loads and
encodes identically."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wpiece

from conftest import TOKENIZER_JSON, VOCAB_TXT, examples
from reference import train_reference, wordpiece_word

FIXTURE = Path(__file__).parent / "data" / "en_fixture.txt"


def vocab_list(tok: wpiece.Tokenizer) -> list[str]:
    by_id = {i: t for t, i in tok.get_vocab().items()}
    return [by_id[i] for i in range(len(by_id))]


def small_base(prefix: str, tokens: list[str]) -> wpiece.Tokenizer:
    vocab = ["[UNK]", *[t for t in tokens if t != "[UNK]"]]
    return wpiece.Tokenizer(
        vocab,
        normalize=False,
        pre_tokenizer="whitespace",
        continuing_subword_prefix=prefix,
        special_tokens=["[UNK]"],
    )


# Words and tokens from a small alphabet full of prefix-like characters, so
# matches, misses, prefix-initial words and repeats all happen.
CHARS = "ab#@é"
words = st.text(CHARS, min_size=1, max_size=8)
tokens = st.text(CHARS, min_size=1, max_size=4)


@settings(max_examples=examples(120), deadline=None)
@given(
    counts=st.dictionaries(words, st.integers(0, 60), min_size=1, max_size=10),
    starts=st.lists(tokens, max_size=8, unique=True),
    continuations=st.lists(tokens, max_size=8, unique=True),
    extra=st.integers(0, 30),
    score=st.sampled_from(["likelihood", "wordpiece", "frequency"]),
    prefix=st.sampled_from(["##", "", "@@"]),
)
def test_extending_matches_the_reference(counts, starts, continuations, extra, score, prefix):
    base_tokens = list(dict.fromkeys([*starts, *(prefix + t for t in continuations)]))
    base = small_base(prefix, base_tokens)
    before = vocab_list(base)
    size = len(before) + extra
    if not any(counts.values()):
        with pytest.raises(ValueError, match="no words"):
            wpiece.train_from_counts(counts, size, initial=base, score=score)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tiny corpora warn about merges of pairs seen once
        got = wpiece.train_from_counts(counts, size, initial=base, score=score)
    expected = train_reference(
        list(counts.items()), size, ["[UNK]"], prefix=prefix, score=score, initial_vocab=before
    )
    assert vocab_list(got) == expected
    assert vocab_list(got)[: len(before)] == before
    assert got.training_record.added_ids == len(expected) - len(before)
    # Longest match over the new vocabulary finds a token at every position
    # of every training word (a merge never leaves it stuck inside an old one).
    for word, count in counts.items():
        if count:
            assert "[UNK]" not in wordpiece_word(word, set(expected), prefix=prefix), word


def test_a_new_token_never_makes_a_word_the_old_vocabulary_encoded_unknown() -> None:
    # The old vocabulary has "##bc" but no "##c": merging (a, ##b) into "ab"
    # made longest match read "abc" as "ab" and then find nothing, [UNK].
    base = small_base("##", ["a", "##bc", "##d"])
    assert base.tokenize("abc") == ["a", "##bc"]
    for score in ("frequency", "wordpiece", "likelihood"):
        for size in (6, 7, 8):
            got = wpiece.train_from_counts({"abc": 1, "abd": 10}, size, initial=base, score=score)
            assert "[UNK]" not in got.tokenize("abc abd"), (score, size)
            assert "##c" in got.get_vocab()
            if (score, size) == ("frequency", 7):
                assert got.tokenize("abc") == ["ab", "##c"]  # [UNK] without "##c"


def test_a_word_the_old_vocabulary_cannot_encode_still_trains() -> None:
    # "z" is in no token: "zab" starts as ["z", "##a", "##b"], "ab" as ["a", "##b"];
    # (z, ##a) and (##a, ##b) tie at 5 and the first met wins.
    base = small_base("##", ["a", "##b", "##a"])
    got = wpiece.train_from_counts({"zab": 5, "ab": 3}, 8, initial=base, score="frequency")
    assert vocab_list(got) == ["[UNK]", "a", "##b", "##a", "z", "za", "zab", "ab"]
    assert got.tokenize("zab ab") == ["zab", "ab"]


@pytest.fixture(scope="module")
def bert() -> wpiece.Tokenizer:
    return wpiece.Tokenizer.from_file(TOKENIZER_JSON)


@pytest.fixture(scope="module")
def extended(bert: wpiece.Tokenizer) -> wpiece.Tokenizer:
    return wpiece.train(FIXTURE, vocab_size=len(bert) + 400, initial=bert)


def test_every_old_token_keeps_its_id_and_new_ones_follow(
    bert: wpiece.Tokenizer, extended: wpiece.Tokenizer
) -> None:
    old, new = bert.get_vocab(), extended.get_vocab()
    assert all(new[t] == i for t, i in old.items())
    assert sorted(new.values()) == list(range(len(bert) + 400))
    record = extended.training_record
    assert record.extended_from == len(bert) and record.added_ids == 400
    assert len(extended) == len(bert) + 400
    added = [t for t, i in sorted(new.items(), key=lambda kv: kv[1]) if i >= len(bert)]
    assert not set(added) & set(old)
    assert sum(t.startswith("##") for t in added) > 0


def test_the_pipeline_and_tokens_are_the_old_tokenizers(
    bert: wpiece.Tokenizer, extended: wpiece.Tokenizer
) -> None:
    old, new = json.loads(bert.to_json()), json.loads(extended.to_json())
    for part in ("normalizer", "pre_tokenizer", "post_processor", "decoder", "added_tokens"):
        assert new[part] == old[part], part
    assert {k: v for k, v in new["model"].items() if k != "vocab"} == {
        k: v for k, v in old["model"].items() if k != "vocab"
    }
    assert new["truncation"] == old["truncation"] and new["padding"] == old["padding"]


def test_the_extended_tokenizer_encodes_as_hf_and_more_compactly(
    bert: wpiece.Tokenizer, extended: wpiece.Tokenizer
) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    hf = tokenizers.Tokenizer.from_str(extended.to_json())
    hf.no_truncation()
    hf.no_padding()
    extended.no_truncation()
    extended.no_padding()
    bert.no_truncation()
    bert.no_padding()
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()[:2000]
    ours = extended.encode_batch(lines)
    assert [e.ids for e in ours] == [e.ids for e in hf.encode_batch(lines)]
    before = sum(len(e.ids) for e in bert.encode_batch(lines))
    after = sum(len(e.ids) for e in ours)
    assert after < before


def test_words_start_as_the_old_vocabulary_encodes_them(bert: wpiece.Tokenizer) -> None:
    # Training from the plain longest-match split of each word, with no
    # merges: the vocabulary is unchanged and nothing is added.
    vocab = set(bert.get_vocab())
    word = "unbelievableness"
    assert wordpiece_word(word, vocab) == bert.tokenize(word)
    same = wpiece.train_from_counts({word: 3}, len(bert), initial=bert)
    assert vocab_list(same) == vocab_list(bert)
    one = wpiece.train_from_counts({word: 3}, len(bert) + 1, initial=bert, score="frequency")
    pieces = bert.tokenize(word)
    assert vocab_list(one)[-1] == pieces[0] + pieces[1].removeprefix("##")


def test_an_added_token_past_the_vocabulary_keeps_its_id() -> None:
    base = wpiece.train_from_iterator(
        FIXTURE.read_text(encoding="utf-8").splitlines()[:3000], vocab_size=600
    )
    base.add_tokens(["<new>"])
    base.add_special_tokens(["<mask>"])
    ids = {t: base.token_to_id(t) for t in ("<new>", "<mask>")}
    assert ids == {"<new>": 600, "<mask>": 601}
    more = wpiece.train(FIXTURE, vocab_size=700, initial=base)
    assert {t: more.token_to_id(t) for t in ids} == ids
    assert len(more) == 700 and more.training_record.added_ids == 98
    text = "a <mask> and <new> token"
    tokenizers = pytest.importorskip("tokenizers")
    hf = tokenizers.Tokenizer.from_str(more.to_json())
    assert more.encode(text).ids == hf.encode(text).ids
    assert more.encode(text).tokens[2] == "<mask>"


def test_a_tokenizer_whose_unknown_token_is_not_a_special_one_is_extended(tmp_path) -> None:
    """HF needs the model's unk token in the vocabulary only, not registered
    as a special token; extending such a tokenizer asked for special_tokens,
    which extending forbids passing."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    hf = Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1, "##b": 2}, unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    hf.save(str(tmp_path / "tokenizer.json"))
    docs = ["the quick brown fox jumps over the lazy dog"] * 5
    tok = wpiece.train_from_iterator(docs, 60, initial=tmp_path / "tokenizer.json")
    assert len(tok) == 54  # every word whole: no pair is left
    assert list(tok.get_vocab())[:3] == ["[UNK]", "a", "##b"]
    assert tok.get_added_tokens_decoder() == {}  # [UNK] stays an ordinary token
    assert tok.tokenize("the dog ab [UNK]") == ["the", "dog", "a", "##b", "[UNK]"]
    assert tok.tokenize("zzz") == ["[UNK]"]


def test_initial_may_be_a_path() -> None:
    from_path = wpiece.train(FIXTURE, vocab_size=30_622, initial=str(VOCAB_TXT))
    loaded = wpiece.Tokenizer.from_file(VOCAB_TXT)
    from_object = wpiece.train(FIXTURE, vocab_size=30_622, initial=loaded)
    assert vocab_list(from_path) == vocab_list(from_object)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"vocab_size": 100}, ValueError, "at least the 30522 ids"),
        ({"lowercase": False}, TypeError, "'lowercase' from the tokenizer it extends"),
        ({"special_tokens": ["[X]"]}, TypeError, "'special_tokens' from the tokenizer it extends"),
        ({"continuing_subword_prefix": "@@"}, TypeError, "'continuing_subword_prefix'"),
        ({"initial": 3}, TypeError, "initial must be a Tokenizer or the path of one, not int"),
        ({"initial": "/no/such/tokenizer.json"}, FileNotFoundError, "no/such"),
    ],
)
def test_bad_extensions_are_refused_by_name(bert, kwargs, error, message) -> None:
    call = {"vocab_size": 30_600, "initial": bert, **kwargs}
    with pytest.raises(error, match=message):
        wpiece.train_from_iterator(["some text"], **call)


def test_counts_split_otherwise_are_refused(bert: wpiece.Tokenizer) -> None:
    cased = wpiece.count_words(["Some Text"], lowercase=False)
    with pytest.raises(ValueError, match="lowercase=False.*otherwise than the tokenizer to extend"):
        wpiece.train_from_counts(cased, 30_600, initial=bert)
    # Counted with BERT's options, "[CLS]" is three words; through bert's
    # pipeline (its special tokens cut out) it is none: these differ too.
    with pytest.raises(ValueError, match="BERT's options, the other through a tokenizer"):
        wpiece.train_from_counts(wpiece.count_words(["some text"]), 30_600, initial=bert)
    same = wpiece.count_words(["[CLS] Tokenization, tokenization!"], tokenizer=bert)
    more = wpiece.train_from_counts(same, 30_523, initial=bert)
    assert vocab_list(more)[30_522:] == ["tokenization"]
    # Words that are tokens already leave nothing to merge: nothing is added.
    whole = wpiece.count_words(["some text"], tokenizer=bert)
    unchanged = wpiece.train_from_counts(whole, 30_600, initial=bert)
    assert len(unchanged) == 30_522 and unchanged.training_record.added_ids == 0


def test_the_cli_extends_a_tokenizer(tmp_path: Path, capsys) -> None:
    from wpiece.cli import main

    out = tmp_path / "tok"
    args = ["train", str(FIXTURE), "--vocab-size", "30600", "-o", str(out), "--no-progress"]
    assert main([*args, "--extend", str(TOKENIZER_JSON)]) == 0
    said = capsys.readouterr().out
    assert "its 30,522 ids kept, 78 added after them" in said
    assert "resize_token_embeddings(30600)" in said
    tok = wpiece.Tokenizer.from_file(out)
    assert len(tok) == 30_600
    assert (out / "vocab.txt").read_text(encoding="utf-8").splitlines()[:30_522] == vocab_list(
        wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    )
    assert main([*args, "--extend", str(TOKENIZER_JSON), "--cased"]) == 2
    assert "--cased comes from the tokenizer given to --extend" in capsys.readouterr().err
