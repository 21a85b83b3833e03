"""Training: golden results from the seeds, the reference trainer, determinism, bad input."""

from __future__ import annotations

import dataclasses
import gzip
import json
import pickle
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wpiece

from conftest import EN_FIXTURE
from reference import train_reference

SEED_CORPUS = [
    "This is the Hugging Face Course.",
    "This chapter is about tokenization.",
    "This section shows several tokenizer algorithms.",
    "Hopefully, you will be able to understand how they are trained and generate tokens.",
]

# Printed in ../shared/seeds/001_*: the vocab after training to 70 tokens.
SEED_VOCAB = (
    ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    + ["##a", "##b", "##c", "##d", "##e", "##f", "##g", "##h", "##i", "##k", "##l", "##m"]
    + ["##n", "##o", "##p", "##r", "##s", "##t", "##u", "##v", "##w", "##y", "##z"]
    + [",", ".", "C", "F", "H", "T", "a", "b", "c", "g", "h", "i", "s", "t", "u", "w", "y"]
    + ["ab", "##fu", "Fa", "Fac", "##ct", "##ful", "##full", "##fully", "Th", "ch", "##hm"]
    + ["cha", "chap", "chapt", "##thm", "Hu", "Hug", "Hugg", "sh", "th", "is", "##thms"]
    + ["##za", "##zat", "##ut"]
)
SEED_TOKENS = ["Th", "##i", "##s", "is", "th", "##e", "Hugg", "##i", "##n", "##g", "Fac", "##e"] + [
    "c",
    "##o",
    "##u",
    "##r",
    "##s",
    "##e",
    "[UNK]",
]


def test_golden_hugging_face_course() -> None:
    tok = wpiece.train_from_iterator(SEED_CORPUS, vocab_size=70, lowercase=False, score="wordpiece")
    assert list(tok.get_vocab()) == SEED_VOCAB
    assert tok.tokenize("This is the Hugging Face course!") == SEED_TOKENS
    first = tok.training_record.merges[0]
    assert (first.left, first.right, first.merged) == ("a", "##b", "ab")
    assert first.score == pytest.approx(0.2)  # printed in the seed


def test_golden_d2l_frequency_merges() -> None:
    counts = {"low_": 5, "lower_": 2, "newest_": 6, "widest_": 3}
    tok = wpiece.train_from_counts(
        counts,
        vocab_size=28 + 10,  # [UNK] + a..z + '_' + ten merges, as in the seed
        score="frequency",
        continuing_subword_prefix="",
        special_tokens=["[UNK]"],
        initial_alphabet=list("abcdefghijklmnopqrstuvwxyz_"),
        pre_tokenizer="whitespace",
    )
    merges = [(m.left, m.right) for m in tok.training_record.merges]
    # Ties (e.g. the three pairs of frequency 9 first) go to the pair met first,
    # scanning words in order, left to right.
    assert merges == [
        ("e", "s"),
        ("es", "t"),
        ("est", "_"),
        ("l", "o"),
        ("lo", "w"),
        ("n", "e"),
        ("ne", "w"),
        ("new", "est_"),
        ("low", "_"),
        ("w", "i"),
    ]
    assert [m.pair_frequency for m in tok.training_record.merges] == [9, 9, 9, 7, 7, 6, 6, 6, 5, 3]
    assert tok.tokenize("slow_") == ["s", "low_"]
    assert tok.tokenize("slowest_") == ["s", "low", "est_"]


words_alphabet = st.sampled_from(list("aab") + ["c", "é", "中", "ж", "#", "a"])
corpora = st.dictionaries(
    st.text(alphabet=words_alphabet, min_size=1, max_size=7),
    st.integers(min_value=1, max_value=5),
    min_size=1,
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(
    counts=corpora,
    vocab_size=st.integers(min_value=1, max_value=60),
    score=st.sampled_from(["likelihood", "wordpiece", "frequency"]),
    min_frequency=st.sampled_from([0, 0, 2, 3]),
    limit_alphabet=st.sampled_from([None, None, 1, 2, 4]),
    prefix=st.sampled_from(["##", "##", ""]),
    initial=st.sampled_from([(), (), ("z",), ("a", "q")]),
)
def test_trainer_equals_reference(
    counts, vocab_size, score, min_frequency, limit_alphabet, prefix, initial
) -> None:
    specials = ["[PAD]", "[UNK]"]
    expected = train_reference(
        list(counts.items()),
        vocab_size,
        specials,
        prefix=prefix,
        score=score,
        min_frequency=min_frequency,
        limit_alphabet=limit_alphabet,
        initial_alphabet=initial,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tok = wpiece.train_from_counts(
            counts,
            vocab_size,
            score=score,
            min_frequency=min_frequency,
            limit_alphabet=limit_alphabet,
            continuing_subword_prefix=prefix,
            special_tokens=specials,
            initial_alphabet=initial,
            pre_tokenizer="whitespace",
        )
    assert list(tok.get_vocab()) == expected


@settings(max_examples=100, deadline=None)
@given(
    docs=st.lists(st.lists(st.text(alphabet=words_alphabet, min_size=1, max_size=6), max_size=6)),
    vocab_size=st.integers(min_value=10, max_value=50),
)
def test_training_from_text_counts_in_first_appearance_order(docs, vocab_size) -> None:
    texts = [" ".join(d) for d in docs]
    counts: dict[str, int] = {}
    for d in docs:
        for w in d:
            counts[w] = counts.get(w, 0) + 1
    if not counts:
        return
    # The default score: likelihood.
    expected = train_reference(list(counts.items()), vocab_size, ["[UNK]"], score="likelihood")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tok = wpiece.train_from_iterator(
            texts, vocab_size, special_tokens=["[UNK]"], normalize=False, pre_tokenizer="whitespace"
        )
    assert list(tok.get_vocab()) == expected


def test_same_vocab_with_one_and_two_threads_and_across_runs() -> None:
    runs = [
        list(wpiece.train(EN_FIXTURE, 3000, num_threads=n).get_vocab()) for n in (1, 2, 2, None)
    ]
    assert all(r == runs[0] for r in runs)
    assert len(runs[0]) == 3000


def test_files_globs_gzip_and_jsonl_agree(tmp_path) -> None:
    lines = EN_FIXTURE.read_text(encoding="utf-8").splitlines()[:2000]
    (tmp_path / "a.txt").write_text("\n".join(lines[:1000]) + "\n", encoding="utf-8")
    with gzip.open(tmp_path / "b.txt.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(lines[1000:]) + "\n")
    with open(tmp_path / "c.jsonl", "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps({"text": line, "id": 1}) + "\n")
    from_iter = list(wpiece.train_from_iterator(lines, 800).get_vocab())
    from_files = list(wpiece.train([tmp_path / "a.txt", tmp_path / "b.txt.gz"], 800).get_vocab())
    from_glob = list(wpiece.train(str(tmp_path / "[ab].txt*"), 800).get_vocab())
    from_jsonl = list(wpiece.train(tmp_path / "c.jsonl", 800, jsonl_field="text").get_vocab())
    assert from_files == from_iter == from_glob == from_jsonl


def test_merges_are_read_from_the_core_when_first_used() -> None:
    # Made into Python objects as training returned, 30,000 merges took a
    # twelfth of training 103 MB; the record now holds the core's rows.
    tok = wpiece.train(EN_FIXTURE, 1200)
    merges = tok.training_record.merges
    assert isinstance(merges, wpiece.MergeList)
    # Training's own look at the first merges (the hapax warning) made none.
    assert merges._rows is not None
    n = len(merges)  # from the core's rows, before any merge is made
    assert n == 1200 - tok.training_record.base_vocab_size
    # Slices read before the whole are made from their rows alone.
    early, late, empty = merges[:1000], merges[-5:], merges[7:3]
    assert merges._rows is not None and empty == []
    listed = list(merges)
    assert early == listed[:1000] and late == listed[-5:] and len(late) == 5
    assert len(listed) == n == len(merges)
    assert all(isinstance(m, wpiece.Merge) for m in listed)
    assert merges[0] is listed[0] and merges[-1] is listed[-1]
    assert merges[3:6] == listed[3:6] and merges == listed and listed == merges
    assert merges != listed[:-1] and merges != listed[::-1]
    assert (merges == "abc") is False
    # Training again gives the same merges (nothing in the record depends on reading it).
    again = wpiece.train(EN_FIXTURE, 1200).training_record.merges
    assert [(m.left, m.right, m.merged, m.tokens_after) for m in again] == [
        (m.left, m.right, m.merged, m.tokens_after) for m in listed
    ]
    with pytest.raises(TypeError):
        hash(merges)
    copy = pickle.loads(pickle.dumps(merges))
    assert isinstance(copy, wpiece.MergeList) and copy == merges
    assert wpiece.MergeList() == [] and len(wpiece.MergeList()) == 0
    for wrong in (["a"], "ab", [listed[0], 3]):
        with pytest.raises(TypeError, match="Merge objects"):
            wpiece.MergeList(wrong)
    with pytest.raises(TypeError):
        wpiece.MergeList(5)  # type: ignore[arg-type]


def test_trained_tokenizer_encodes_and_saves_record(tmp_path) -> None:
    tok = wpiece.train(EN_FIXTURE, 2000)
    rec = tok.training_record
    assert rec.vocab_size == 2000 == len(tok)
    curve = rec.tokens_per_word()
    assert curve[0][0] == rec.base_vocab_size and curve[-1][0] == 2000
    assert all(b[1] <= a[1] for a, b in zip(curve, curve[1:]))  # merging only shortens
    # The record counts the training segmentation; greedy longest-match encoding
    # differs on some words (here 0.4% fewer tokens), so the encoder's count is
    # close but not equal. `held_out` and `Tokenizer.stats` measure the encoder.
    lines = EN_FIXTURE.read_text(encoding="utf-8").splitlines()
    n_tokens = sum(len(e) for e in tok.encode_batch(lines, add_special_tokens=False))
    assert abs(n_tokens - rec.merges[-1].tokens_after) <= 0.01 * n_tokens
    tok.save(tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "tokenizer.json",
        "tokenizer_config.json",
        "training_record.json",
        "vocab.txt",
    ]
    loaded = wpiece.TrainingRecord.load(tmp_path / "out" / "training_record.json")
    assert loaded == rec
    # The merges take the core's rows as their own dicts: those rows hold
    # exactly Merge's fields, and the merges behave as ones built by Merge().
    fields = [f.name for f in dataclasses.fields(wpiece.Merge)]
    for m in rec.merges[:50]:
        assert list(vars(m)) == fields
        built = wpiece.Merge(**vars(m))
        assert m == built and hash(m) == hash(built) and repr(m) == repr(built)
        with pytest.raises(dataclasses.FrozenInstanceError):
            m.left = "x"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(tok)).training_record == rec
    again = wpiece.Tokenizer.from_file(tmp_path / "out")
    assert again.encode(lines[0]).ids == tok.encode(lines[0]).ids


def test_min_frequency_stops_rare_merges() -> None:
    tok = wpiece.train(EN_FIXTURE, 30000, min_frequency=50)
    assert len(tok) < 30000
    assert min(m.pair_frequency for m in tok.training_record.merges) >= 50


def test_limit_alphabet_drops_rare_characters() -> None:
    tok = wpiece.train_from_iterator(["aaa bbb ccc d"], 100, limit_alphabet=3)
    assert "d" not in tok.get_vocab() and "a" in tok.get_vocab()
    assert tok.tokenize("d") == ["[UNK]"]


# ----- bad input ------------------------------------------------------------


def test_empty_corpus() -> None:
    with pytest.raises(ValueError, match="no words"):
        wpiece.train_from_iterator([], 100)
    with pytest.raises(ValueError, match="no words"):
        wpiece.train_from_iterator(["   ", "\n"], 100)


def test_vocab_size_below_alphabet_keeps_alphabet_and_warns() -> None:
    with pytest.warns(UserWarning, match="smaller than the special tokens plus the alphabet"):
        tok = wpiece.train_from_iterator(["abcdef ghij"], 8)
    assert len(tok) == 5 + 10  # specials + every character (a + 5 "##" forms, g + 3), no merges
    assert tok.training_record.merges == []


def test_missing_file_named() -> None:
    with pytest.raises(FileNotFoundError, match="does-not-exist.txt"):
        wpiece.train("does-not-exist.txt", 100)
    with pytest.raises(FileNotFoundError, match="no file matches"):
        wpiece.train("nothing-here-*.txt", 100)


def test_invalid_utf8_names_file_and_offset(tmp_path) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(b"good line\nanother good line\nbad \xff byte\n")
    with pytest.raises(ValueError, match=r"bad.txt: invalid UTF-8 at byte offset 32"):
        wpiece.train(p, 100)
    # Past the first read block (4 MiB) the offset still counts from the file start.
    big = b"word " * 1_000_000 + b"\n"
    p.write_bytes(big + b"ok\n\xc3(\n")
    with pytest.raises(ValueError, match=f"invalid UTF-8 at byte offset {len(big) + 3}"):
        wpiece.train(p, 100)


def test_non_str_items() -> None:
    with pytest.raises(TypeError, match="item 1 of the corpus is bytes"):
        wpiece.train_from_iterator(["ok", b"bytes"], 100)
    with pytest.raises(TypeError, match="single str"):
        wpiece.train_from_iterator("just a string", 100)
    with pytest.raises(TypeError, match="non-negative int"):
        wpiece.train_from_counts({"a": "3"}, 100)


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="unk_token"):
        wpiece.train_from_iterator(["a b"], 10, special_tokens=["[PAD]"])
    with pytest.raises(ValueError, match="score"):
        wpiece.train_from_iterator(["a b"], 10, score="bpe")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="vocab_size"):
        wpiece.train_from_iterator(["a b"], 0)
    with pytest.raises(ValueError, match="num_threads"):
        wpiece.train_from_iterator(["a b"], 10, num_threads=0)
