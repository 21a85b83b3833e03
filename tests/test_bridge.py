"""The transformers bridge, exact both ways: `to_transformers()` declares just
the tokenizer's special tokens and carries its truncation and sides;
`from_hf()` takes a transformers tokenizer's own settings, not what its last
call left on the backend; `train_new_from_iterator` keeps the current
settings; a round trip through `save_pretrained` and `AutoTokenizer` changes
no encoding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import transformers

import wpiece

from adversarial import ADVERSARIAL

TEXTS = [
    "a [MASK] a",
    "[CLS] a [SEP] mask",
    "Hello, world! Isn't this unaffable?",
    *ADVERSARIAL,
]


def test_to_transformers_declares_only_the_tokenizers_special_tokens() -> None:
    # [CLS], [SEP] and [MASK] are plain vocabulary here: text typed as
    # "[MASK]" is split like any other text, by wpiece and transformers.
    vocab = ["[UNK]", "[CLS]", "[SEP]", "[MASK]", "[", "]", "mask", "a"]
    tok = wpiece.Tokenizer(vocab, special_tokens=["[UNK]"])
    hf = tok.to_transformers()
    assert set(hf.all_special_tokens) == {"[UNK]"}
    for text in TEXTS:
        assert hf.tokenize(text) == tok.tokenize(text), text
        ids = tok.encode(text).ids
        assert hf(text)["input_ids"] == ids, text
        for skip in (True, False):
            assert hf.decode(ids, skip_special_tokens=skip) == tok.decode(ids, skip), text


def test_to_transformers_keeps_every_special_token_of_bert() -> None:
    tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    hf = tok.to_transformers()
    assert set(hf.all_special_tokens) == {"[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"}
    assert (hf.cls_token, hf.sep_token, hf.pad_token) == ("[CLS]", "[SEP]", "[PAD]")
    for text in TEXTS:
        assert hf(text)["input_ids"] == tok.encode(text).ids, text


def test_to_transformers_carries_truncation_and_sides() -> None:
    tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    tok.enable_truncation(8, direction="left")
    tok.enable_padding(length=8, direction="left")
    hf = tok.to_transformers()
    assert hf.model_max_length == 8
    assert (hf.truncation_side, hf.padding_side) == ("left", "left")
    text = "one two three four five six seven eight nine ten"
    got = hf(text, truncation=True, padding="max_length")["input_ids"]
    assert got == tok.encode(text).ids
    short = hf("one", truncation=True, padding="max_length")["input_ids"]
    assert short == tok.encode("one").ids


def test_from_hf_takes_no_settings_a_previous_call_left() -> None:
    hf = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path()).to_transformers()
    fresh = wpiece.Tokenizer.from_hf(hf).encode("hello world").ids
    hf("hello world", padding="max_length", max_length=128, truncation=True)
    after = wpiece.Tokenizer.from_hf(hf)
    assert after.truncation is None and after.padding is None
    assert after.encode("hello world").ids == fresh == hf("hello world")["input_ids"]


def test_from_hf_keeps_a_tokenizers_tokenizers_own_settings() -> None:
    from tokenizers import Tokenizer as HFTokenizer

    tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    tok.enable_truncation(5)
    hf = HFTokenizer.from_str(tok.to_json())
    back = wpiece.Tokenizer.from_hf(hf)
    assert back.truncation == tok.truncation
    assert back.encode("a b c d e f g").ids == hf.encode("a b c d e f g").ids


def test_train_new_from_iterator_keeps_the_current_settings(tmp_path: Path) -> None:
    tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    tok.save(tmp_path / "tokenizer.json")
    loaded = wpiece.Tokenizer.from_file(tmp_path / "tokenizer.json")
    loaded.enable_truncation(6, stride=1, direction="left")
    loaded.enable_padding(length=9)
    corpus = list(wpiece.documents.read_lines(wpiece.sample_text_path()))
    new = loaded.train_new_from_iterator(corpus, 400)
    assert new.truncation == loaded.truncation
    assert {**new.padding, "pad_id": 0} == {**loaded.padding, "pad_id": 0}
    loaded.no_truncation()
    loaded.no_padding()
    plain = loaded.train_new_from_iterator(corpus, 400)
    assert plain.truncation is None and plain.padding is None


def test_a_round_trip_through_save_pretrained_changes_no_encoding(tmp_path: Path) -> None:
    for vocab, specials in (
        (None, None),
        (["[UNK]", "[CLS]", "[SEP]", "[MASK]", "[", "]", "mask", "a"], ["[UNK]"]),
    ):
        if vocab is None:
            tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
            tok.add_tokens([wpiece.AddedToken("<ent>", lstrip=True), "covid19"])
            tok.add_special_tokens(["<sys>"])
        else:
            tok = wpiece.Tokenizer(vocab, special_tokens=specials)
        folder = tmp_path / str(len(tok))
        tok.to_transformers().save_pretrained(folder)
        auto = transformers.AutoTokenizer.from_pretrained(folder)
        back = wpiece.Tokenizer.from_hf(auto)
        assert back.get_vocab() == tok.get_vocab()
        assert back.get_added_tokens_decoder() == tok.get_added_tokens_decoder()
        assert (back.truncation, back.padding) == (tok.truncation, tok.padding)
        assert back._core.special_tokens_in_order() == tok._core.special_tokens_in_order()
        for text in TEXTS:
            for pair in (None, "and a pair"):
                a, b = tok.encode(text, pair), back.encode(text, pair)
                assert (a.ids, a.type_ids, a.offsets) == (b.ids, b.type_ids, b.offsets), text
                assert auto(text, pair)["input_ids"] == a.ids, text
            assert back.decode(tok.encode(text).ids) == tok.decode(tok.encode(text).ids)


def test_a_round_trip_keeps_the_tokenizers_own_truncation_and_padding(tmp_path: Path) -> None:
    tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    tok.enable_truncation(8, stride=2, direction="left")
    tok.enable_padding(length=12, direction="left", pad_to_multiple_of=4)
    hf = tok.to_transformers()
    hf("a long text " * 20, truncation=True, max_length=5)  # a call leaves its own on the backend
    hf.save_pretrained(tmp_path)
    back = wpiece.Tokenizer.from_hf(transformers.AutoTokenizer.from_pretrained(tmp_path))
    assert (back.truncation, back.padding) == (tok.truncation, tok.padding)
    for text in TEXTS[:5]:
        assert back.encode(text).ids == tok.encode(text).ids


def test_settings_a_trained_copy_carries_pad_with_its_own_pad_token(en_lines: list[str]) -> None:
    # transformers' train_new_from_iterator copies the config, wpiece_settings
    # with it, into a tokenizer whose vocabulary numbers [PAD] anew: from_hf
    # padded with the old vocabulary's id (5, another token here), HF with 3.
    vocab = ["[UNK]", "[CLS]", "[SEP]", "a", "b", "[PAD]", "[MASK]"]
    tok = wpiece.Tokenizer(vocab + [chr(c) for c in range(ord("c"), ord("z") + 1)])
    tok.enable_truncation(16)
    # The pad token's own id (5; HF's default pad_id is 0 whatever the token).
    tok.enable_padding(length=16, pad_id=None)
    new = tok.to_transformers().train_new_from_iterator(en_lines[:2000], 300)
    back = wpiece.Tokenizer.from_hf(new)
    assert back.padding is not None and back.padding["pad_id"] == new.pad_token_id != 5
    for text in en_lines[:50]:
        got = new(text, truncation=True, padding="max_length", max_length=16)
        assert back.encode(text).ids == got["input_ids"], text
    # The pad token renamed on the way ([PAD] gone): from_hf raised ValueError.
    renamed = tok.to_transformers().train_new_from_iterator(
        en_lines[:2000], 300, special_tokens_map={"[PAD]": "<pad>"}
    )
    back = wpiece.Tokenizer.from_hf(renamed)
    assert back.padding is not None and back.padding["pad_token"] == "<pad>"
    for text in en_lines[:50]:
        got = renamed(text, truncation=True, padding="max_length", max_length=16)
        assert back.encode(text).ids == got["input_ids"], text
    # A pad id given apart from the pad token's is the tokenizer's own: kept.
    tok.enable_padding(length=16, pad_id=4)
    assert wpiece.Tokenizer.from_hf(tok.to_transformers()).padding == tok.padding


def test_special_tokens_typed_in_text_encoded_as_text_as_hf(en_lines: list[str]) -> None:
    """HF's encode_special_tokens (transformers' split_special_tokens):
    special tokens typed in a text are encoded as the text they are, added
    tokens that are not special still matched. tokenizer.json does not hold
    it: from_hf matched "[SEP]" in text where HF splits it into "[", "sep",
    "]". Now from_hf, to_transformers, pickles and copies carry it."""
    import pickle

    from tokenizers import AddedToken
    from tokenizers import Tokenizer as HFTokenizer

    from conftest import TOKENIZER_JSON

    hf = HFTokenizer.from_file(str(TOKENIZER_JSON))
    hf.no_truncation()
    hf.no_padding()
    hf.add_tokens([AddedToken("hello world"), AddedToken("XyZ", normalized=False)])
    hf.add_special_tokens([AddedToken("<sp>", lstrip=True), AddedToken("<spn>", normalized=True)])
    # A special token's match still hides the tokens it overlaps (HF drops
    # the match after matching): these were split apart.
    hf.add_tokens([AddedToken("SEP]", normalized=False), AddedToken("b", normalized=False)])
    hf.add_tokens([AddedToken("qzq"), AddedToken("used"), AddedToken("y", normalized=False)])
    hf.add_special_tokens(
        [AddedToken("abc", normalized=False), AddedToken("<qzq>", normalized=True)]
    )
    hf.add_special_tokens([AddedToken("xy", single_word=True, normalized=False), "[unused7]"])
    hf.encode_special_tokens = True
    typed = [
        "[CLS] Hello World XyZ <sp> <SPN> [SEP] x",
        "[SEP][SEP][MASK]a[UNK]",
        " <sp>  <sp>x",
        "[sep] [Mask] [ SEP ]",
        "[SEP] abc <qzq> [unused7] axy xy b y qzq",
        "abcabc b<QZQ>qzq [unused7]used",
    ]
    texts = typed + [f"{t} [SEP] {u} [MASK]" for t, u in zip(en_lines[:80], en_lines[80:160])]
    tok = wpiece.Tokenizer.from_hf(hf)
    assert tok.encode_special_tokens
    seconds = texts[::-1]

    def same(tok: wpiece.Tokenizer) -> None:
        wanted = hf.encode_batch(list(zip(texts, seconds)))
        got_all = tok.encode_batch(texts, seconds)
        assert len(got_all) == len(wanted)
        for got, want in zip(got_all, wanted):
            assert (got.ids, got.tokens, got.offsets) == (want.ids, want.tokens, want.offsets)
            assert got.special_tokens_mask == want.special_tokens_mask
        ids, bounds = tok.encode_batch_flat(texts)[:2]
        flat = [ids[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:])]
        assert flat == [e.ids for e in hf.encode_batch(texts)]

    same(tok)
    same(pickle.loads(pickle.dumps(tok)))
    tok.enable_truncation(512)
    same(tok)
    # Off again, special tokens typed in text are matched, as HF matches them.
    tok.encode_special_tokens = False
    hf.encode_special_tokens = False
    same(tok)
    # transformers: its own split_special_tokens, both ways through the bridge.
    base = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    base.encode_special_tokens = True
    fast = base.to_transformers()
    assert fast.split_special_tokens
    text = f"{en_lines[0]} [SEP] [MASK]"
    assert fast(text)["input_ids"] == base.encode(text).ids
    assert wpiece.Tokenizer.from_hf(fast).encode_special_tokens
    assert wpiece.Tokenizer.from_hf(fast).encode(text).ids == fast(text)["input_ids"]
    # What a call leaves on the backend is not the tokenizer's own setting.
    plain = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path()).to_transformers()
    plain(text, split_special_tokens=True)
    assert plain.backend_tokenizer.encode_special_tokens
    back = wpiece.Tokenizer.from_hf(plain)
    assert not back.encode_special_tokens
    assert back.encode(text).ids == plain(text)["input_ids"]
    with pytest.raises(TypeError):
        base.encode_special_tokens = 1  # type: ignore[assignment]


def test_transformers_clean_up_of_spaces_carried_both_ways(en_lines: list[str]) -> None:
    """A transformers tokenizer whose config sets clean_up_tokenization_spaces
    (transformers 4.x saved BERT configs so) ends decode with its clean-up of
    spaces; from_hf ignored it ("don ' t" where transformers gives "don't")."""
    import pickle

    from transformers import PreTrainedTokenizerFast

    texts = [*en_lines[:60], "Don't stop , ok ? I'm here . Isn't it ! We've they're it's"]
    base = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    fast = PreTrainedTokenizerFast(
        tokenizer_object=base.to_transformers().backend_tokenizer,
        clean_up_tokenization_spaces=True,
    )
    tok = wpiece.Tokenizer.from_hf(fast)
    assert tok.clean_up_tokenization_spaces
    ids = [fast(t)["input_ids"] for t in texts]
    assert tok.decode_batch(ids) == [fast.decode(i, skip_special_tokens=True) for i in ids]
    assert tok.decode(ids[-1]) == "don't stop, ok? i'm here. isn't it! we've they're it's"
    for copy in (pickle.loads(pickle.dumps(tok)), tok.train_new_from_iterator(texts, 300)):
        assert copy.clean_up_tokenization_spaces
    # to_transformers passes it on, and a tokenizer without it decodes as HF.
    back = tok.to_transformers()
    assert back.clean_up_tokenization_spaces
    assert [back.decode(i, skip_special_tokens=True) for i in ids] == tok.decode_batch(ids)
    assert not base.clean_up_tokenization_spaces and "don ' t" in base.decode(ids[-1])
    assert not wpiece.Tokenizer.from_hf(base.to_transformers()).clean_up_tokenization_spaces
    with pytest.raises(TypeError):
        base.clean_up_tokenization_spaces = "yes"  # type: ignore[assignment]


def test_transformers_call_settings_come_along_from_folders_and_objects(tmp_path: Path) -> None:
    # padding_side, truncation_side, model_max_length and model_input_names
    # live in transformers' config (or on the object) and apply per call:
    # from_file(folder) and from_hf dropped them, so to_transformers padded
    # on the right, cut at the tokenizer.json's 128 and gave token_type_ids.
    import pickle

    from transformers import AutoTokenizer

    from conftest import TOKENIZER_JSON

    source = AutoTokenizer.from_pretrained(TOKENIZER_JSON.parent)
    source.padding_side = source.truncation_side = "left"
    source.model_max_length = 8
    source.model_input_names = ["input_ids", "attention_mask"]
    fast = tmp_path / "fast"
    source.save_pretrained(fast)
    config = {"tokenizer_class": "BertTokenizer", "padding_side": "left", "model_max_length": 8}
    slow = _slow_folder(tmp_path / "slow", config)
    texts = ["hello world", "the quick brown fox jumps over the lazy dog again and again"]
    for folder in (fast, slow):
        want = AutoTokenizer.from_pretrained(folder)
        loaded = wpiece.Tokenizer.from_file(folder)
        for tok in (loaded, pickle.loads(pickle.dumps(loaded)), wpiece.Tokenizer.from_hf(want)):
            got = tok.to_transformers()
            for call in ({"padding": True}, {"truncation": True}, {"padding": "max_length"}):
                assert dict(got(texts, **call)) == dict(want(texts, **call)), (folder, call)
    # The caller's options still come first; settings made since, too.
    got = wpiece.Tokenizer.from_file(fast).to_transformers(model_max_length=4)
    assert len(got(texts[1], truncation=True)["input_ids"]) == 4
    tok = wpiece.Tokenizer.from_file(fast)
    tok.enable_truncation(5)
    tok.enable_padding()
    got = tok.to_transformers()
    assert len(got(texts[1], truncation=True)["input_ids"]) == 5
    assert got(texts, padding=True)["attention_mask"][0][0] == 1  # padded on the right
    tok.no_truncation()
    assert len(tok.to_transformers()(texts[1], truncation=True)["input_ids"]) == 14


def test_batch_calls_pad_and_truncate_a_folder_as_transformers_does(tmp_path: Path) -> None:
    # A folder's padding_side, truncation_side and model_max_length reached
    # to_transformers only: encode_batch(padding=True) padded on the right,
    # truncation=True without max_length was an error.
    import pickle

    from transformers import AutoTokenizer

    sides = {"padding_side": "left", "truncation_side": "left", "model_max_length": 6}
    fast = _transformers_folder(tmp_path / "fast", **sides)
    slow = _slow_folder(tmp_path / "slow", {"tokenizer_class": "BertTokenizer", **sides})
    texts = ["hello world", "a b c d e f g h", "one"]
    pairs = ["x y z w"] * 3
    calls = (
        {"padding": True},
        {"truncation": True},
        {"truncation": True, "max_length": 4},
        {"padding": "max_length"},
        {"padding": "max_length", "max_length": 9},
        {"padding": True, "truncation": True, "pad_to_multiple_of": 3},
        # A max_length alone truncates; a multiple with nothing to pad is ignored.
        {"max_length": 4},
        {"max_length": 5, "pad_to_multiple_of": 3},
        {"pad_to_multiple_of": 4},
    )
    for folder in (fast, slow):
        want = AutoTokenizer.from_pretrained(folder)
        loaded = wpiece.Tokenizer.from_file(folder)
        for tok in (loaded, pickle.loads(pickle.dumps(loaded)), wpiece.Tokenizer.from_hf(want)):
            for call in calls:
                expected = want(texts, **call)
                got = tok.encode_batch(texts, **call)
                assert [e.ids for e in got] == expected["input_ids"], (folder, call)
                assert [e.attention_mask for e in got] == expected["attention_mask"]
                both = tok.encode_batch(texts, pairs, **call)
                assert [e.ids for e in both] == want(texts, pairs, **call)["input_ids"]
            rows = tok.encode_batch_numpy(texts, padding=True, truncation=True)
            expected = want(texts, padding=True, truncation=True)
            assert rows["input_ids"].tolist() == expected["input_ids"], folder
            # A multiple that does not divide the length cut at: refused
            # (it padded past the length, as HF tokenizers' objects do).
            for refused in (
                {"padding": True, "truncation": True, "pad_to_multiple_of": 4},
                {
                    "padding": "max_length",
                    "truncation": True,
                    "max_length": 9,
                    "pad_to_multiple_of": 2,
                },
            ):
                with pytest.raises(ValueError, match="not a multiple of pad_to_multiple_of"):
                    want(texts, **refused)
                for call in (tok.encode_batch, tok.encode_batch_numpy):
                    with pytest.raises(ValueError, match="not a multiple of pad_to_multiple_of"):
                        call(texts, **refused)
    # Settings made here replace the folder's.
    tok = wpiece.Tokenizer.from_file(fast)
    tok.enable_padding()
    tok.enable_truncation(8)
    got = tok.encode_batch(texts, padding=True, truncation=True)
    assert got[2].ids[-1] == tok.token_to_id("[PAD]") and len(got[1].ids) == 8


def test_padding_a_call_with_no_padding_set_uses_the_pad_token_to_transformers_names() -> None:
    # MPNet's vocabulary holds BERT's [PAD] as a plain token and pads with
    # the special <pad>: a call padded with [PAD], transformers with <pad>.
    vocab = ["<s>", "<pad>", "</s>", "<unk>", "[PAD]", "a", "b", "##b"]
    texts = ["a", "a b b"]
    mpnet, both = ["<s>", "<pad>", "</s>", "<unk>"], ["[PAD]", "<pad>"]
    for specials, pad in ((mpnet, "<pad>"), (both, "[PAD]")):
        tok = wpiece.Tokenizer(vocab, unk_token="<unk>", special_tokens=specials)
        hf = tok.to_transformers()
        assert hf.pad_token == pad
        got = [e.ids for e in tok.encode_batch(texts, padding=True)]
        assert got == hf(texts, padding=True)["input_ids"], specials
        assert got[0][-1] == tok.token_to_id(pad)
        rows = tok.encode_batch_numpy(texts)["input_ids"].tolist()
        assert rows == got


def test_a_saved_folder_loads_in_transformers_as_to_transformers_gives(tmp_path: Path) -> None:
    # A folder save held tokenizer.json and vocab.txt only: AutoTokenizer
    # loaded it with no special tokens (no pad token to pad with, no mask
    # token for masking), and from_file dropped the transformers settings
    # (sides, model_max_length, inputs, clean-up of spaces) a pickle keeps.
    from transformers import AutoTokenizer

    from conftest import TOKENIZER_JSON

    plain = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    plain.add_special_tokens(["<sys>"])
    plain.add_tokens(["covid19"])
    tuned = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    tuned.enable_truncation(6, direction="left")
    tuned.enable_padding(direction="left", pad_to_multiple_of=4)
    tuned.clean_up_tokenization_spaces = True
    tuned.encode_special_tokens = True
    source = AutoTokenizer.from_pretrained(TOKENIZER_JSON.parent)
    source.padding_side = "left"
    source.model_max_length = 7
    source.model_input_names = ["input_ids", "attention_mask"]
    carried = wpiece.Tokenizer.from_hf(source)
    texts = ["hello world [MASK]", "Don't stop , ok ? covid19 <sys> and a much longer text"]
    calls = ({"padding": True}, {"truncation": True}, {"padding": "max_length", "max_length": 9})
    for name, tok in (("plain", plain), ("tuned", tuned), ("carried", carried)):
        folder = tmp_path / name
        # Stale transformers files of an older tokenizer there would change
        # the tokens AutoTokenizer gives the new one: they go.
        folder.mkdir()
        (folder / "special_tokens_map.json").write_text('{"mask_token": "hello"}')
        (folder / "added_tokens.json").write_text('{"zzz": 99999}')
        tok.save(folder)
        assert not (folder / "special_tokens_map.json").exists(), name
        assert not (folder / "added_tokens.json").exists(), name
        want, auto = tok.to_transformers(), AutoTokenizer.from_pretrained(folder)
        back = wpiece.Tokenizer.from_file(folder)
        assert (back.clean_up_tokenization_spaces, back.encode_special_tokens) == (
            tok.clean_up_tokenization_spaces,
            tok.encode_special_tokens,
        )
        for got in (auto, back.to_transformers()):
            assert got.all_special_tokens == want.all_special_tokens, name
            assert (got.pad_token, got.mask_token, got.cls_token) == (
                want.pad_token,
                want.mask_token,
                want.cls_token,
            )
            for call in calls:
                assert dict(got(texts, **call)) == dict(want(texts, **call)), (name, call)
            ids = want(texts[1])["input_ids"]
            assert got.decode(ids, skip_special_tokens=True) == want.decode(
                ids, skip_special_tokens=True
            )
    assert "token_type_ids" not in AutoTokenizer.from_pretrained(tmp_path / "carried")("a")
    assert AutoTokenizer.from_pretrained(tmp_path / "tuned").padding_side == "left"
    # A tokenizer tokenizer.json cannot express has no transformers form:
    # the folder keeps no config of an older one.
    wpiece.Tokenizer.from_file(wpiece.sample_vocab_path(), unknown="char").save(tmp_path / "plain")
    assert not (tmp_path / "plain" / "tokenizer_config.json").exists()


def test_a_folder_save_of_what_tokenizer_json_cannot_express_keeps_what_transformers_set(
    tmp_path: Path,
) -> None:
    # Per-character unknowns: saved as a settings file, which dropped the
    # sides, pad token and chat template of the folder it came from (a
    # pickle kept them): padded right with [PAD] after the save.
    import pickle

    attrs = {"padding_side": "left", "truncation_side": "left", "model_max_length": 7}
    source = _transformers_folder(tmp_path / "s", chat_template="T", pad_token="[MASK]", **attrs)
    char = wpiece.Tokenizer.from_file(source, unknown="char")
    char.save(tmp_path / "char")
    assert not (tmp_path / "char" / "tokenizer_config.json").exists()
    call = {"texts": ["a b c d e f g h", "a"], "padding": True, "truncation": True}
    for back in (wpiece.Tokenizer.from_file(tmp_path / "char"), pickle.loads(pickle.dumps(char))):
        assert back._transformers_settings == char._transformers_settings
        assert back._transformers_settings["chat_template"] == "T"
        got = back.encode_batch(**call)
        assert [e.ids for e in got] == [e.ids for e in char.encode_batch(**call)]
        # Padded left with [MASK], cut at 7.
        assert got[1].ids[0] == back.token_to_id("[MASK]") and len(got[0].ids) == 7
    # What the file says is checked as a config's would be.
    path = tmp_path / "char" / "wpiece_tokenizer.json"
    saved = json.loads(path.read_text(encoding="utf-8"))
    for bad in ([1], {"padding_side": "middle"}, {"chat_template": 5}):
        path.write_text(json.dumps({**saved, "transformers_settings": bad}), encoding="utf-8")
        with pytest.raises(ValueError, match="wpiece_tokenizer.json"):
            wpiece.Tokenizer.from_file(tmp_path / "char")


def test_a_folder_save_keeps_what_transformers_cannot_take_and_the_models_chat_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, en_lines: list[str]
) -> None:
    from transformers import AutoTokenizer

    # A tokenizer with no tokenizer.json form keeps its flags through a
    # folder save (its settings file; the folder's missing config read as
    # "both off" overwrote them).
    char = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path(), unknown="char")
    char.encode_special_tokens = char.clean_up_tokenization_spaces = True
    char.save(tmp_path / "char")
    back = wpiece.Tokenizer.from_file(tmp_path / "char")
    assert back.encode_special_tokens and back.clean_up_tokenization_spaces
    assert back.encode("a [MASK] b").ids == char.encode("a [MASK] b").ids
    assert back.decode(char.encode("don't, ok").ids) == "don't, ok"

    # A class whose backend library is missing is a transformers placeholder
    # raising ImportError when read: the save does not need it.
    class Placeholder:
        def __getattr__(self, name: str) -> None:
            raise ImportError("requires a library that is not installed")

    monkeypatch.setattr(transformers, "WpieceTestTokenizerFast", Placeholder(), raising=False)
    source = tmp_path / "source"
    wpiece.Tokenizer.from_file(wpiece.sample_vocab_path()).save(source)
    config = {"tokenizer_class": "WpieceTestTokenizerFast", "chat_template": "{{ messages }}"}
    (source / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    loaded = wpiece.Tokenizer.from_file(source)
    loaded.save(tmp_path / "copy")
    assert AutoTokenizer.from_pretrained(tmp_path / "copy")("hello")["input_ids"] == [
        101,
        7592,
        102,
    ]
    # Saved back into its model's folder, a vocabulary extended from it keeps
    # the model's chat template and what the folder's config said.
    config = {"model_max_length": 16, "padding_side": "left", "chat_template": "{{ messages }}"}
    (source / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    extended = wpiece.train_from_iterator(en_lines[:300], 30550, initial=source)
    assert len(extended) == 30550
    extended.save(source)
    auto = AutoTokenizer.from_pretrained(source)
    assert auto.chat_template == "{{ messages }}"
    assert (auto.model_max_length, auto.padding_side) == (16, "left")
    assert dict(auto(en_lines[:3], padding=True)) == dict(
        extended.to_transformers()(en_lines[:3], padding=True)
    )


def test_chat_templates_come_along_as_transformers_reads_them(tmp_path: Path) -> None:
    # from_file(folder).to_transformers() and a save into another folder
    # dropped the model's chat template: apply_chat_template failed there.
    import os
    import pickle

    from transformers import AutoTokenizer

    from conftest import TOKENIZER_JSON

    template = "{% for m in messages %}[CLS] {{ m['content'] }} [SEP]{% endfor %}"
    named = {"default": template, "tool_use": "{{ messages[0]['content'] }}"}
    source = AutoTokenizer.from_pretrained(TOKENIZER_JSON.parent)
    for kind, value in (("one", template), ("named", named)):
        folder = tmp_path / kind
        source.chat_template = value
        source.save_pretrained(folder)  # chat_template.jinja (and additional_chat_templates/)
        want = AutoTokenizer.from_pretrained(folder).chat_template
        assert want == value
        loaded = wpiece.Tokenizer.from_file(folder)
        copies = (loaded, pickle.loads(pickle.dumps(loaded)), wpiece.Tokenizer.from_hf(source))
        for tok in copies:
            assert tok.to_transformers().chat_template == want, kind
        # Saved elsewhere over another set's template file: the carried one
        # is what AutoTokenizer and from_file read there.
        copy = tmp_path / f"{kind}-copy"
        copy.mkdir()
        (copy / "chat_template.jinja").write_text("stale", encoding="utf-8")
        loaded.save(copy)
        assert AutoTokenizer.from_pretrained(copy).chat_template == want, sorted(os.listdir(copy))
        assert wpiece.Tokenizer.from_file(copy).to_transformers().chat_template == want
    # The config's own, in the list form older transformers wrote.
    folder = tmp_path / "config"
    wpiece.Tokenizer.from_file(TOKENIZER_JSON).save(folder)
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["chat_template"] = [{"name": k, "template": v} for k, v in named.items()]
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    want = AutoTokenizer.from_pretrained(folder).chat_template
    assert want == named
    assert wpiece.Tokenizer.from_file(folder).to_transformers().chat_template == want


@pytest.mark.parametrize("value", [5, [{"name": "x"}], {"default": 1}, True])
def test_a_chat_template_of_another_kind_is_a_clear_error(tmp_path: Path, value: object) -> None:
    from conftest import TOKENIZER_JSON

    folder = tmp_path / "folder"
    wpiece.Tokenizer.from_file(TOKENIZER_JSON).save(folder)
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["chat_template"] = value
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ValueError, match="chat_template must be"):
        wpiece.Tokenizer.from_file(folder)


def _slow_folder(folder: Path, config: dict[str, Any]) -> Path:
    """A slow tokenizer's folder: the test vocab.txt and ``config``."""
    from conftest import TOKENIZER_JSON

    folder.mkdir()
    (folder / "vocab.txt").write_bytes((TOKENIZER_JSON.parent / "vocab.txt").read_bytes())
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def _transformers_folder(folder: Path, **attrs: Any) -> Path:
    """The test tokenizer saved by transformers into ``folder``, its backend
    set as ``backend`` says, ``attrs`` set on it."""
    from transformers import AutoTokenizer

    from conftest import TOKENIZER_JSON

    source = AutoTokenizer.from_pretrained(TOKENIZER_JSON.parent)
    source.backend_tokenizer.no_truncation()
    source.backend_tokenizer.no_padding()
    backend = attrs.pop("backend", None)
    if backend is not None:
        backend(source.backend_tokenizer)
    for name, value in attrs.items():
        setattr(source, name, value)
    source.save_pretrained(folder)
    return folder


@pytest.mark.filterwarnings("ignore:asked to truncate to max_length")
def test_a_transformers_folder_pads_and_cuts_calls_as_transformers_does(tmp_path: Path) -> None:
    # transformers pads with its config's pad token and sets its backend's
    # truncation and padding afresh at every call: what its tokenizer.json
    # held (the last call's, when saved) padded calls that asked for none,
    # rounded them to its multiple, and its stride refused short max_length.
    from transformers import AutoTokenizer

    def leftovers(backend: Any) -> None:
        backend.enable_truncation(128, stride=3)
        backend.enable_padding(pad_to_multiple_of=8, pad_type_id=1)

    folders = [
        _transformers_folder(tmp_path / "pad-token", pad_token="[unused1]"),
        _transformers_folder(tmp_path / "leftovers", backend=leftovers, model_max_length=16),
        _transformers_folder(
            tmp_path / "left", backend=leftovers, padding_side="left", model_max_length=7
        ),
    ]
    texts, pairs = ["a", "a b", "one two three four five six seven"], ["x y", "z", "w"]
    calls = (
        {},
        {"padding": True},
        {"truncation": True},
        {"truncation": True, "max_length": 4},
        {"padding": "max_length", "max_length": 9},
        {"padding": True, "truncation": True},
    )
    for folder in folders:
        want, tok = AutoTokenizer.from_pretrained(folder), wpiece.Tokenizer.from_file(folder)
        assert (tok.truncation, tok.padding) == (None, None), folder
        assert tok.to_transformers().pad_token == want.pad_token
        for call in calls:
            got = tok.encode_batch(texts, **call)
            expected = want(texts, return_token_type_ids=True, **call)
            assert [e.ids for e in got] == expected["input_ids"], (folder.name, call)
            assert [e.type_ids for e in got] == expected["token_type_ids"], (folder.name, call)
            both = tok.encode_batch(texts, pairs, **call)
            assert [e.ids for e in both] == want(texts, pairs, **call)["input_ids"], call
    # Asked for a length none gives, transformers warns and does not cut.
    tok = wpiece.Tokenizer.from_file(folders[0])
    with pytest.warns(UserWarning, match="not done"):
        long = tok.encode_batch([texts[2] * 99], truncation=True)
    assert len(long[0].ids) == len(want([texts[2] * 99])["input_ids"][0]) > 512
    # A folder wpiece saved keeps the tokenizer's own settings.
    own = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    own.enable_truncation(6, stride=1)
    own.enable_padding(pad_to_multiple_of=4)
    own.save(tmp_path / "own")
    back = wpiece.Tokenizer.from_file(tmp_path / "own")
    assert (back.truncation, back.padding) == (own.truncation, own.padding)


def test_chat_templates_saved_over_another_set_leave_none_of_its_files(tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    named = {"default": "D", "tool_use": "T"}
    old = _transformers_folder(tmp_path / "old", chat_template={"default": "O", "rag": "R"})
    for value in (named, "NEW"):
        source = _transformers_folder(tmp_path / f"source-{len(value)}", chat_template=value)
        loaded = wpiece.Tokenizer.from_file(source)
        loaded.save(source)  # into its own folder
        loaded.save(old)  # over another set's named templates
        for folder in (source, old):
            assert AutoTokenizer.from_pretrained(folder).chat_template == value, folder
            assert wpiece.Tokenizer.from_file(folder).to_transformers().chat_template == value
            # Named ones live in the config: no folder of old files is left.
            assert not (folder / "additional_chat_templates").exists(), folder
    # Read in text mode, as transformers reads it.
    crlf = _transformers_folder(tmp_path / "crlf", chat_template="x")
    (crlf / "chat_template.jinja").write_bytes(b"a\r\nb\rc")
    want = AutoTokenizer.from_pretrained(crlf).chat_template
    assert wpiece.Tokenizer.from_file(crlf).to_transformers().chat_template == want == "a\nb\nc"


@pytest.mark.parametrize(
    "attrs", [{"chat_template": 123}, {"chat_template": {"a": 1}}, {"padding_side": "middle"}]
)
def test_what_a_transformers_tokenizer_holds_is_checked_as_its_folder_would_be(
    attrs: dict[str, Any],
) -> None:
    from transformers import AutoTokenizer

    from conftest import TOKENIZER_JSON

    source = AutoTokenizer.from_pretrained(TOKENIZER_JSON.parent)
    for name, value in attrs.items():
        source.__dict__[name] = value  # past transformers' own checks
    with pytest.raises(ValueError, match="must be"):
        wpiece.Tokenizer.from_hf(source)


def test_a_folder_saved_by_wpiece_encodes_every_call_as_the_tokenizer_saved(
    tmp_path: Path,
) -> None:
    # Its config names a pad token and sides for transformers: they must
    # not replace the tokenizer's own padding (a pad id 5 padded with 0).
    texts = ["Hello world, this is a long sentence of many words.", "short", "a medium one"]
    pairs = ["a pair", "pair two is longer than one", "x"]
    calls = (
        {},
        {"padding": True},
        {"truncation": True},
        {"padding": "max_length", "max_length": 20},
        {"padding": True, "pad_to_multiple_of": 8},
        {"truncation": True, "max_length": 6},
        {"padding": "max_length", "truncation": True},
    )
    settings: tuple[tuple[Any, Any], ...] = (
        ({"max_length": 8}, None),
        ({"max_length": 8, "stride": 2, "direction": "left"}, None),
        ({"max_length": 8, "strategy": "only_second"}, None),
        (None, {}),
        (None, {"direction": "left"}),
        (None, {"pad_to_multiple_of": 8}),
        (None, {"length": 16}),
        (None, {"pad_type_id": 1}),
        (None, {"pad_id": 5}),
        (None, {"pad_token": "[unused0]", "pad_id": None}),
        (None, {"pad_token": "[MASK]", "direction": "left"}),
        (None, {"pad_token": "the", "pad_id": None}),
        ({"max_length": 8, "direction": "left"}, {"direction": "left", "pad_to_multiple_of": 4}),
        ({"max_length": 10, "stride": 1}, {"length": 12, "pad_type_id": 1}),
    )

    def outputs(tok: wpiece.Tokenizer) -> list[Any]:
        got: list[Any] = []
        for call, with_pairs in ((c, p) for c in calls for p in (None, pairs)):
            try:
                objects = tok.encode_batch(texts, with_pairs, **call)
                got.append([(e.ids, e.type_ids, e.attention_mask) for e in objects])
                rows = tok.encode_batch_numpy(texts, with_pairs, **call)
                got.append({k: v.tolist() for k, v in rows.items()})
            except ValueError as e:
                got.append(str(e))
        return got

    for k, (truncation, padding) in enumerate(settings):
        tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
        if truncation:
            tok.enable_truncation(**truncation)
        if padding:
            tok.enable_padding(**padding)
        tok.save(tmp_path / str(k))
        back = wpiece.Tokenizer.from_file(tmp_path / str(k))
        assert (back.truncation, back.padding) == (tok.truncation, tok.padding)
        assert outputs(back) == outputs(tok), (truncation, padding)


def test_sides_and_pad_token_a_config_omits_come_from_tokenizer_json(tmp_path: Path) -> None:
    # As transformers takes them; an empty config is a config too.
    from tokenizers import Tokenizer as HFTokenizer
    from transformers import AutoTokenizer

    from conftest import TOKENIZER_JSON

    hf = HFTokenizer.from_file(str(TOKENIZER_JSON))
    hf.enable_padding(direction="left", pad_token="[MASK]", pad_id=103)
    hf.enable_truncation(8, direction="left")
    texts = ["a b c d e", "a"]
    calls = ({}, {"padding": True}, {"truncation": True, "max_length": 4})
    for config in ({"model_max_length": 512}, {}):
        folder = tmp_path / str(len(config))
        folder.mkdir()
        hf.save(str(folder / "tokenizer.json"))
        (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
        want = AutoTokenizer.from_pretrained(folder)
        for tok in (wpiece.Tokenizer.from_file(folder), wpiece.Tokenizer.from_hf(want)):
            for call in calls:
                got = [e.ids for e in tok.encode_batch(texts, **call)]
                assert got == want(texts, **call)["input_ids"], (config, call)
    # The file itself, as tokenizers reads it: its settings stand.
    alone = wpiece.Tokenizer.from_file(folder / "tokenizer.json")
    assert [e.ids for e in alone.encode_batch(texts)] == [e.ids for e in hf.encode_batch(texts)]
