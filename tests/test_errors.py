"""Bad input gives clear Python exceptions, never panics or half-written files."""

from __future__ import annotations

import json
import os

import pytest

import wpiece
from wpiece import UnsupportedComponentError

from conftest import TOKENIZER_JSON


def spec() -> dict:
    return json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))


def write_json(tmp_path, data) -> str:
    p = tmp_path / "tokenizer.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    return str(p)


def test_duplicate_tokens_rejected(tmp_path) -> None:
    p = tmp_path / "vocab.txt"
    p.write_text("[UNK]\nhello\nworld\nhello\n", encoding="utf-8")
    with pytest.raises(ValueError, match='duplicate token "hello"'):
        wpiece.Tokenizer.from_file(p)
    with pytest.raises(ValueError, match="duplicate"):
        wpiece.Tokenizer(["[UNK]", "a", "a"])


def test_a_vocabulary_without_its_unk_token_fails_only_where_it_is_needed(tmp_path) -> None:
    # HF loads such a vocabulary and fails on a word that needs the token.
    p = tmp_path / "vocab.txt"
    p.write_text("hello\nworld\n", encoding="utf-8")
    for tok in (
        wpiece.Tokenizer.from_file(p),
        wpiece.Tokenizer.from_file(TOKENIZER_JSON, unk_token="<unk>"),
    ):
        assert "hello" in tok.encode("hello world").tokens
        with pytest.raises(ValueError, match="unknown token .*not in the vocabulary"):
            tok.encode("hello \U0001f600")


def test_missing_file_names_it(tmp_path) -> None:
    missing = tmp_path / "nope" / "vocab.txt"
    with pytest.raises(FileNotFoundError, match="nope"):
        wpiece.Tokenizer.from_file(missing)
    with pytest.raises(FileNotFoundError):
        wpiece.Tokenizer.from_file(tmp_path)  # folder without tokenizer files


def test_invalid_utf8_names_file_and_offset(tmp_path) -> None:
    p = tmp_path / "vocab.txt"
    p.write_bytes(b"[UNK]\nabc\n\xff\xfe\n")
    with pytest.raises(ValueError, match=r"vocab.txt: invalid UTF-8 at byte offset 10"):
        wpiece.Tokenizer.from_file(p)


def test_empty_vocab_rejected(tmp_path) -> None:
    p = tmp_path / "vocab.txt"
    p.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match="empty"):
        wpiece.Tokenizer.from_file(p)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.update(normalizer={"type": "Precompiled"}), "normalizer Precompiled"),
        (
            lambda d: d.update(
                normalizer={"type": "Replace", "pattern": {"Regex": "a*"}, "content": "b"}
            ),
            "normalizer Replace with a Regex pattern that may match an empty string",
        ),
        (lambda d: d.update(pre_tokenizer={"type": "Metaspace"}), "pre-tokenizer Metaspace"),
        (lambda d: d.update(pre_tokenizer={"type": "ByteLevel"}), "pre-tokenizer ByteLevel"),
        (lambda d: d["model"].update(type="BPE"), "model type BPE"),
        (lambda d: d.update(decoder={"type": "ByteLevel"}), "decoder ByteLevel"),
        (lambda d: d.update(post_processor={"type": "ByteLevel"}), "post-processor ByteLevel"),
    ],
)
def test_unsupported_components_raise(tmp_path, mutate, message) -> None:
    d = spec()
    mutate(d)
    with pytest.raises(UnsupportedComponentError, match=message):
        wpiece.Tokenizer.from_file(write_json(tmp_path, d))
    assert issubclass(UnsupportedComponentError, ValueError)


@pytest.mark.parametrize(
    "drop, add, hf_reads_as",
    [
        ((), {}, "WordPiece"),  # BERT's, as older versions of tokenizers wrote it
        (("continuing_subword_prefix",), {}, "WordLevel"),
        (("max_input_chars_per_word",), {}, "WordLevel"),
        ((), {"merges": []}, "BPE"),
        ((), {"merges": None}, "WordPiece"),
        ((), {"continuing_subword_prefix": None}, "WordLevel"),
        ((), {"max_input_chars_per_word": None}, "WordLevel"),
        ((), {"max_input_chars_per_word": "100"}, "WordLevel"),
        (("unk_token", "continuing_subword_prefix", "max_input_chars_per_word"), {}, None),
    ],
)
def test_a_model_without_type_is_read_as_hf_reads_it(drop, add, hf_reads_as) -> None:
    """Files from before tokenizers tagged models: HF takes the first model
    whose fields the object has (BPE, WordPiece, WordLevel)."""
    from tokenizers import Tokenizer as HFTokenizer

    d = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    d["truncation"] = d["padding"] = None
    del d["model"]["type"]
    for key in drop:
        del d["model"][key]
    d["model"].update(add)
    text = json.dumps(d)
    if hf_reads_as is None:
        with pytest.raises(Exception, match="did not match any variant"):
            HFTokenizer.from_str(text)
        with pytest.raises(ValueError, match="model has no type"):
            wpiece.Tokenizer.from_str(text)
        return
    hf = HFTokenizer.from_str(text)
    assert json.loads(hf.to_str())["model"]["type"] == hf_reads_as
    if hf_reads_as != "WordPiece":
        with pytest.raises(UnsupportedComponentError, match=f"model type {hf_reads_as}"):
            wpiece.Tokenizer.from_str(text)
        return
    wp = wpiece.Tokenizer.from_str(text)
    for t in ["Hello, unaffable world!", "naïve café 日本語", ""]:
        assert wp.encode(t).ids == hf.encode(t).ids
    assert json.loads(wp.to_json())["model"]["type"] == "WordPiece"


@pytest.mark.parametrize(
    "text, message",
    [
        ("{not json", "invalid tokenizer.json"),
        ("[]", "top level"),
        ('{"model": {"type": "WordPiece"}}', "no vocab"),
    ],
)
def test_malformed_json_raises_value_error(tmp_path, text, message) -> None:
    p = tmp_path / "tokenizer.json"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        wpiece.Tokenizer.from_file(p)


def test_vocab_with_gaps_rejected(tmp_path) -> None:
    d = spec()
    del d["model"]["vocab"]["hello"]
    with pytest.raises(ValueError, match="without gaps"):
        wpiece.Tokenizer.from_file(write_json(tmp_path, d))


def test_type_errors() -> None:
    tok = wpiece.Tokenizer(["[UNK]", "a"])
    with pytest.raises(TypeError):
        tok.encode(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        tok.encode_batch(["a", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        tok.encode_batch("abc")
    # The flat path reads lists item by item (prefetching ahead): a bad item
    # anywhere, even past the first prefetch window, is a TypeError.
    texts: list = ["a"] * 40
    texts[33] = b"bytes"
    with pytest.raises(TypeError, match="bytes"):
        tok.encode_batch_flat(texts)
    assert tok._core.encode_batch_flat(("a", "a a"), False, 1, False)[1].tolist() == [0, 1, 3]
    with pytest.raises(TypeError, match="unknown options"):
        wpiece.Tokenizer.from_file(TOKENIZER_JSON, lower=True)


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="pre_tokenizer"):
        wpiece.Tokenizer(["[UNK]"], pre_tokenizer="spaces")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown"):
        wpiece.Tokenizer(["[UNK]"], unknown="sometimes")  # type: ignore[arg-type]
    tok = wpiece.Tokenizer(["[UNK]", "a"])
    # Asked for the pad token's own id, and it has none (HF's default id 0
    # needs no lookup: test_encoding_api).
    with pytest.raises(ValueError, match="pad token"):
        tok.enable_padding(pad_id=None)
    with pytest.raises(ValueError, match="strategy"):
        tok.enable_truncation(5, strategy="middle")
    with pytest.raises(ValueError, match="pairs"):
        tok.encode_batch(["a", "a"], ["a"])


def test_save_is_atomic(tmp_path, monkeypatch) -> None:
    tok = wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    target = tmp_path / "tokenizer.json"
    target.write_text("previous content", encoding="utf-8")
    tok.save(target)
    assert json.loads(target.read_text(encoding="utf-8"))["model"]["type"] == "WordPiece"
    assert sorted(os.listdir(tmp_path)) == ["tokenizer.json"]  # no temp file left

    # A failing write leaves the old file intact and no temp file behind.
    target.write_text("previous content", encoding="utf-8")
    os.chmod(tmp_path, 0o500)
    try:
        if os.access(tmp_path, os.W_OK):  # running as root: simulate with a missing dir
            with pytest.raises(FileNotFoundError):
                tok.save(tmp_path / "missing-dir" / "tokenizer.json")
        else:
            with pytest.raises(OSError):
                tok.save(target)
    finally:
        os.chmod(tmp_path, 0o700)
    assert target.read_text(encoding="utf-8") == "previous content"
    assert sorted(os.listdir(tmp_path)) == ["tokenizer.json"]


# ----- messages that name the argument (issue: trust, round 2) --------------


def _counts() -> wpiece.WordCounts:
    return wpiece.count_words(["a b c a"])


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: wpiece.count_words(["a"], num_threads=-1),
            ValueError,
            "num_threads must be at least 1",
        ),
        (lambda: wpiece.WordCounts(num_threads=0), ValueError, "num_threads must be at least 1"),
        (lambda: _counts().most_common(-1), ValueError, "n must be a non-negative int"),
        (lambda: _counts().prune(-1), ValueError, "min_count must be a non-negative int"),
        (
            lambda: wpiece.train_from_counts(_counts(), 30, max_input_chars_per_word=-1),
            ValueError,
            "max_input_chars_per_word must be at least 0",
        ),
        (
            lambda: wpiece.train_from_counts(_counts(), 30, max_input_chars_per_word="x"),
            TypeError,
            "max_input_chars_per_word must be an int",
        ),
    ],
)
def test_bad_calls_name_the_argument(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call()


def test_huge_counts_arguments_mean_everything_or_nothing() -> None:
    assert _counts().most_common(10**30) == _counts().most_common()
    assert len(_counts().prune(10**30)) == 0
    assert _counts().prune(2).most_common() == [("a", 2)]


def test_max_input_chars_per_word_is_a_training_option() -> None:
    counts = wpiece.count_words(["abcdef abc ab"] * 3)
    tok = wpiece.train_from_counts(counts, 40, max_input_chars_per_word=4)
    assert tok.settings["max_input_chars_per_word"] == 4
    assert tok.tokenize("abcdef abc") == ["[UNK]", *tok.tokenize("abc")]
    again = wpiece.train_from_iterator(["abcdef abc ab"] * 3, 40, max_input_chars_per_word=4)
    assert again.get_vocab() == tok.get_vocab() and again.settings == tok.settings
    base = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    with pytest.raises(TypeError, match="max_input_chars_per_word"):
        base.train_new_from_iterator(["a b"], 100, max_input_chars_per_word=4)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda tok: tok.encode_batch(["a", "b"], ["x", None]),
            "item 1 of pairs is NoneType, not str",
        ),
        (lambda tok: tok.encode_batch(["a", 3]), "item 1 of texts is int, not str"),
        (lambda tok: tok.encode_batch_flat(["a", b"x"]), "item 1 of texts is bytes, not str"),
        (lambda tok: tok.encode_batch_numpy([None]), "item 0 of texts is NoneType, not str"),
        (lambda tok: tok.encode_batch(("a", 3.5)), "item 1 of texts is float, not str"),
    ],
)
def test_a_bad_item_in_a_batch_is_named_by_its_index(call, message) -> None:
    tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    with pytest.raises(TypeError, match=message):
        call(tok)


def test_a_bool_is_no_token_id_where_hf_reads_true_as_one() -> None:
    # Documented in README ("Where wpiece differs from HF on purpose").
    tokenizers = pytest.importorskip("tokenizers")
    hf = tokenizers.Tokenizer.from_file(str(TOKENIZER_JSON))
    assert hf.decode([True, 2088]) == hf.decode([1, 2088])
    assert hf.id_to_token(True) == hf.id_to_token(1)
    tok = wpiece.Tokenizer.from_file(TOKENIZER_JSON)
    for call in (
        lambda: tok.decode([True, 2088]),
        lambda: tok.decode_batch([[2088, False]]),
        lambda: tok.id_to_token(True),
    ):
        with pytest.raises(TypeError, match="got bool"):
            call()
