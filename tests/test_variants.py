"""The seeds' variants as options, transformers drop-in, and the report from Python."""

from __future__ import annotations

import pickle

import pytest

import wpiece
from wpiece.report import write_report

from conftest import EN_FIXTURE, TOKENIZER_JSON, VOCAB_TXT

LINES = EN_FIXTURE.read_text(encoding="utf-8").splitlines()


def test_nptel_style_whitespace_unk_per_character() -> None:
    text = "Predictions for food delivery in next 3 - 6 months - Commissions will go down"
    tok = wpiece.train_from_iterator(
        [text],
        120,
        pre_tokenizer="whitespace",
        unk_token="<unk>",
        special_tokens=["<unk>"],
        unknown="char",
        lowercase=False,
    )
    assert tok.get_vocab()["<unk>"] == 0
    # Whitespace pre-tokenizer: "-" stays inside the word; as "-" never followed a
    # character in training, "##-" is unknown, and only that character becomes <unk>.
    assert tok.tokenize("food-delivery") == ["food", "<unk>", "##d", "##e", "##l", "##i", "##very"]
    assert tok.tokenize("foodQ") == ["food", "<unk>"]
    # "f" only ever started words, so "##f" is unknown too.
    assert tok.tokenize("Qfood") == ["<unk>", "<unk>", "##o", "##o", "##d"]
    # With the BERT pre-tokenizer and whole-word unknowns the same text differs.
    bert = wpiece.train_from_iterator([text], 120, lowercase=False)
    assert bert.tokenize("food-delivery")[:2] == ["food", "-"]
    assert bert.tokenize("foodQ") == ["[UNK]"]
    clone = pickle.loads(pickle.dumps(tok))
    assert clone.tokenize("foodQ") == ["food", "<unk>"]


def test_a_folder_save_of_what_tokenizer_json_cannot_hold_loads_back_whole(tmp_path) -> None:
    """Per-character unknowns, a cased BERT pipeline, an added token,
    truncation and padding: all come back from the folder (vocab.txt alone
    would load lowercased with whole-word [UNK])."""
    text = "Predictions for food delivery in next 3 - 6 months - Commissions will go down"
    tok = wpiece.train_from_iterator(
        [text], 120, unk_token="<unk>", special_tokens=["<unk>"], unknown="char", lowercase=False
    )
    tok.add_tokens(["Qfood"])
    tok.enable_truncation(max_length=5)
    tok.enable_padding(length=7, pad_token="<unk>")
    tok.save(tmp_path / "nptel")
    assert not (tmp_path / "nptel" / "tokenizer.json").exists()
    back = wpiece.Tokenizer.from_file(tmp_path / "nptel")
    assert back.settings == tok.settings
    for t in ["foodQ Predictions", "Qfood food-delivery", "FOOD xyz"]:
        a, b = tok.encode(t), back.encode(t)
        assert (a.ids, a.tokens, a.offsets, a.attention_mask) == (
            b.ids,
            b.tokens,
            b.offsets,
            b.attention_mask,
        )
    assert back.tokenize("foodQ") == ["food", "<unk>"]
    # Options given to from_file still override what the folder says.
    assert wpiece.Tokenizer.from_file(tmp_path / "nptel", unknown="word").tokenize("foodQ") == [
        "<unk>"
    ]
    # A tokenizer.json saved later into the folder takes over (its set replaces the old).
    plain = wpiece.Tokenizer.from_file(VOCAB_TXT)
    plain.save(tmp_path / "nptel")
    saved = sorted(p.name for p in (tmp_path / "nptel").iterdir())
    assert saved == ["tokenizer.json", "tokenizer_config.json", "vocab.txt"]


def test_a_tokenizer_json_pipeline_with_per_character_unknowns_survives_pickle_and_folders(
    tmp_path,
) -> None:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    vocab = {"[UNK]": 0, "a": 1, "##b": 2, "b": 3, "x": 4}
    hf = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    hf.normalizer = normalizers.Replace("q", "x")
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    hf.save(str(tmp_path / "tokenizer.json"))
    tok = wpiece.Tokenizer.from_file(tmp_path / "tokenizer.json", unknown="char")
    expected = ["a", "##b", "x", "[UNK]", "[UNK]", "b", "[UNK]"]
    assert tok.tokenize("ab q zz b!") == expected
    assert pickle.loads(pickle.dumps(tok)).tokenize("ab q zz b!") == expected
    tok.save(tmp_path / "out")
    assert wpiece.Tokenizer.from_file(tmp_path / "out").tokenize("ab q zz b!") == expected


def test_a_settings_folder_is_one_file_whatever_lies_beside_it(tmp_path) -> None:
    """The settings file holds the vocabulary too: a vocab.txt of another
    set beside it (a save halfway, a file copied in) changes nothing; the
    file may be named directly; options given to from_file turn on the
    normalizer they configure, as over vocab.txt."""
    tok = wpiece.Tokenizer(
        ["[UNK]", "[CLS]", "[SEP]", "x", "##y", "a", "##b"], unknown="char", normalize=False
    )
    tok.save(tmp_path / "t")
    (tmp_path / "t" / "vocab.txt").write_text("[PAD]\n[UNK]\nzz\n")
    for path in (tmp_path / "t", tmp_path / "t" / "wpiece_tokenizer.json"):
        back = wpiece.Tokenizer.from_file(path)
        assert back.get_vocab() == tok.get_vocab()
        assert back.tokenize("ab xy AB") == ["a", "##b", "x", "##y", "[UNK]", "[UNK]"]
    lowered = wpiece.Tokenizer.from_file(tmp_path / "t", lowercase=True)
    plain = wpiece.Tokenizer(list(tok.get_vocab()), unknown="char", lowercase=True)
    assert lowered.tokenize("AB Xy") == plain.tokenize("AB Xy") == ["a", "##b", "x", "##y"]
    # A bad option is the caller's, not the file's.
    with pytest.raises(ValueError) as caught:
        wpiece.Tokenizer.from_file(tmp_path / "t", unknown="bogus")
    assert "wpiece_tokenizer.json" not in str(caught.value)


def test_a_token_no_line_can_hold_leaves_vocab_txt_out_of_a_settings_folder(tmp_path) -> None:
    tok = wpiece.Tokenizer(["[UNK]", "a\nb", "a"], unknown="char")
    tok.save(tmp_path / "t")
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == ["wpiece_tokenizer.json"]
    back = wpiece.Tokenizer.from_file(tmp_path / "t")
    assert back.get_vocab() == tok.get_vocab()
    assert back.tokenize("a q") == ["a", "[UNK]"]


@pytest.mark.parametrize(
    "damage",
    [
        lambda s: s[: len(s) // 2],
        lambda s: "[]",
        lambda s: s.replace('"version": 1', '"version": 2'),
        lambda s: s.replace('"unknown": "char"', '"unknown": "some"'),
        lambda s: s.replace('"settings": {', '"settings": {"bogus": 1, '),
        lambda s: s.replace('"truncation": null', '"truncation": 5'),
        lambda s: s.replace('"added_tokens": [', '"added_tokens": [7, '),
    ],
)
def test_a_damaged_settings_file_is_a_clear_error(tmp_path, damage) -> None:
    tok = wpiece.Tokenizer(["[UNK]", "a", "##b"], unknown="char")
    tok.save(tmp_path / "t")
    path = tmp_path / "t" / "wpiece_tokenizer.json"
    path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(ValueError, match="wpiece_tokenizer.json"):
        wpiece.Tokenizer.from_file(tmp_path / "t")


def test_hf_course_style_is_the_default() -> None:
    tok = wpiece.train_from_iterator(LINES[:500], 400)
    assert list(tok.get_vocab())[:5] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    assert tok.encode("in the beginning").tokens[0] == "[CLS]"


def test_d2l_style_frequency_no_prefix_end_of_word_suffix(tmp_path) -> None:
    counts = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    tok = wpiece.train_from_counts(
        counts,
        22,
        score="frequency",
        continuing_subword_prefix="",
        end_of_word_suffix="_",
        special_tokens=["[UNK]"],
    )
    merges = [m.merged for m in tok.training_record.merges]
    assert merges == ["es", "est", "est_", "lo", "low", "ne", "new", "newest_", "low_", "wi"]
    assert tok.tokenize("slow slowest") == ["s", "low_", "s", "low", "est_"]
    assert tok.decode(tok.encode("slow slowest").ids) == "slow slowest"
    enc = tok.encode("a slowest")
    assert enc.offsets[-1] == (6, 9)  # "est_" covers "est"; the suffix has no source
    with pytest.raises(wpiece.UnsupportedComponentError, match="suffix"):
        tok.to_json()
    tok.save(tmp_path / "d2l")
    # tokenizer.json cannot hold it: its settings are saved beside vocab.txt,
    # which alone would load with BERT's defaults.
    assert sorted(p.name for p in (tmp_path / "d2l").iterdir()) == [
        "training_record.json",
        "vocab.txt",
        "wpiece_tokenizer.json",
    ]
    back = wpiece.Tokenizer.from_file(tmp_path / "d2l")
    assert back.settings == tok.settings
    assert back.tokenize("slow slowest") == ["s", "low_", "s", "low", "est_"]
    assert back.encode("a slowest").ids == tok.encode("a slowest").ids
    assert pickle.loads(pickle.dumps(tok)).tokenize("slowest") == ["s", "low", "est_"]


def test_suffix_from_text_training_matches_counts() -> None:
    a = wpiece.train_from_iterator(
        [
            "low low low low low lower lower newest newest newest newest newest newest widest "
            "widest widest"
        ],  # fmt: skip
        22,
        score="frequency",
        continuing_subword_prefix="",
        end_of_word_suffix="_",
        special_tokens=["[UNK]"],
    )
    assert a.tokenize("slowest") == ["s", "low", "est_"]


def test_transformers_drop_in(tmp_path) -> None:
    import transformers  # in the test extra: a missing install must fail, not skip

    for lowercase in (True, False):
        tok = wpiece.Tokenizer.from_file(VOCAB_TXT, lowercase=lowercase)
        texts = LINES[:300] + ["Ünïcode 中文 [MASK] don't", "x" * 120, ""]
        fast = tok.to_transformers()
        tok.save(tmp_path / f"t{lowercase}.json")
        from_file = transformers.PreTrainedTokenizerFast(
            tokenizer_file=str(tmp_path / f"t{lowercase}.json")
        )
        for text in texts:
            enc = tok.encode(text)
            for hf in (fast, from_file):
                out = hf(text, return_offsets_mapping=True)
                assert out["input_ids"] == enc.ids, text
                assert [tuple(o) for o in out["offset_mapping"]] == enc.offsets, text
            assert fast.decode(enc.ids, skip_special_tokens=True) == tok.decode(enc.ids)
        pair = fast(LINES[0], LINES[1])
        assert pair["input_ids"] == tok.encode(LINES[0], LINES[1]).ids
        assert pair["token_type_ids"] == tok.encode(LINES[0], LINES[1]).type_ids
    # A trained vocabulary works the same way.
    trained = wpiece.train_from_iterator(LINES[:2000], 1200)
    fast = trained.to_transformers()
    batch = fast(LINES[:50], padding=True, truncation=True, max_length=32)
    trained.enable_truncation(32)
    expected = [e.ids for e in trained.encode_batch(LINES[:50])]
    assert [[i for i, m in zip(row, mask) if m] for row, mask in
            zip(batch["input_ids"], batch["attention_mask"])] == expected  # fmt: skip
    assert fast.unk_token == "[UNK]" and fast.mask_token == "[MASK]"
    assert transformers.PreTrainedTokenizerFast(
        tokenizer_file=str(tmp_path / "tTrue.json")
    ).tokenize("hello world") == ["hello", "world"]
    assert wpiece.Tokenizer.from_file(TOKENIZER_JSON).to_transformers().model_max_length > 0


def test_report_from_python(tmp_path) -> None:
    tok = wpiece.train_from_iterator(LINES[:3000], 2000)
    png, page = write_report(tok, tmp_path)
    assert png.stat().st_size > 20_000 and page.stat().st_size > png.stat().st_size
    with pytest.raises(ValueError, match="no training record"):
        write_report(wpiece.Tokenizer.from_file(VOCAB_TXT), tmp_path)
