"""A folder a transformers slow tokenizer saved (vocab.txt and
tokenizer_config.json, no tokenizer.json) loads as transformers'
AutoTokenizer loads it: the config's casing, accents, Chinese chars, unk
token and added tokens apply (they were dropped: a cased model's folder was
lowercased, 3148 of 4100 encodings of a real one differed). What wpiece
would read otherwise is refused by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import wpiece

from adversarial import ADVERSARIAL
from conftest import EN_FIXTURE, VOCAB_TXT

LINES = EN_FIXTURE.read_text(encoding="utf-8").splitlines()[:300]
AIMED = [
    "Turn the Über Café 你好 Hello World [SEP] x",
    "NewWord [NEW]y  [NEW] newword",
    "ÅNGSTRÖM e\u0301te\u0301 中文ab İstanbul",
    "the [MASK] sat on the [SEP]mat[CLS] x[PAD]y [UNK]",
]
TEXTS = LINES + AIMED + list(ADVERSARIAL)
SPECIAL = {"lstrip": False, "normalized": False, "rstrip": False, "single_word": False}
BERT_SPECIALS = {"0": "[PAD]", "100": "[UNK]", "101": "[CLS]", "102": "[SEP]", "103": "[MASK]"}


def _vocab() -> list[str]:
    base = VOCAB_TXT.read_text(encoding="utf-8").split("\n")[:-1]
    # Cased forms of common words, so that casing changes the ids.
    words = [t for t in base[2000:6000] if t.isalpha() and t.isascii()]
    return base + [w.capitalize() for w in words] + ["Über", "Café"]


def _folder(tmp_path: Path, name: str, config: dict[str, Any] | None) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "vocab.txt").write_text("\n".join(_vocab()) + "\n", encoding="utf-8")
    if config is not None:
        (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def _hf_bert(cased: bool) -> Any:
    """An HF tokenizer of BERT's pipeline over the test vocabulary, with no
    added tokens; ``cased``: its BertNormalizer keeps case and accents."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    ids = {t: i for i, t in enumerate(_vocab())}
    hf = Tokenizer(models.WordPiece(ids, unk_token="[UNK]"))
    flags = {"lowercase": False, "strip_accents": False} if cased else {}
    hf.normalizer = normalizers.BertNormalizer(**flags)
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    hf.post_processor = processors.BertProcessing(("[SEP]", ids["[SEP]"]), ("[CLS]", ids["[CLS]"]))
    hf.decoder = decoders.WordPiece()
    return hf


def _decoder(**extra: dict[str, Any]) -> dict[str, Any]:
    tokens = {k: {"content": v, **SPECIAL, "special": True} for k, v in BERT_SPECIALS.items()}
    return {**tokens, **extra}


CONFIGS: dict[str, dict[str, Any]] = {
    "cased": {"tokenizer_class": "BertTokenizer", "do_lower_case": False},
    "cased-distilbert": {"tokenizer_class": "DistilBertTokenizer", "do_lower_case": False},
    "keep-accents": {"tokenizer_class": "BertTokenizer", "strip_accents": False},
    "strip-accents-cased": {
        "tokenizer_class": "ElectraTokenizer",
        "do_lower_case": False,
        "strip_accents": True,
    },
    "no-chinese-chars": {"tokenizer_class": "BertTokenizerFast", "tokenize_chinese_chars": False},
    "unk-named-otherwise": {"tokenizer_class": "BertTokenizer", "unk_token": "[MASK]"},
    "unk-as-added-token-dict": {
        "tokenizer_class": "BertTokenizer",
        "unk_token": {"__type": "AddedToken", "content": "[UNK]", **SPECIAL},
    },
    "added-tokens": {
        "tokenizer_class": "BertTokenizer",
        "do_lower_case": False,
        "added_tokens_decoder": _decoder(
            **{
                str(len(_vocab())): {
                    **SPECIAL,
                    "content": "newword",
                    "normalized": True,
                    "special": False,
                },
                str(len(_vocab()) + 1): {
                    **SPECIAL,
                    "content": "[NEW]",
                    "lstrip": True,
                    "special": True,
                },
            }
        ),
    },
    # Special tokens named beyond the framing ones are special tokens in
    # transformers (matched whole in text); a role's AddedToken dict gives
    # its flags; transformers' clean-up of spaces ends decoding.
    "extra-specials": {
        "tokenizer_class": "BertTokenizer",
        "bos_token": "[unused3]",
        "additional_special_tokens": [
            "[unused5]",
            {"__type": "AddedToken", **SPECIAL, "content": "[unused6]", "lstrip": True},
        ],
        "extra_special_tokens": {"tag": "[unused7]"},
        "mask_token": {"__type": "AddedToken", "content": "[MASK]", "lstrip": True, "rstrip": True},
        "clean_up_tokenization_spaces": True,
    },
    # Special tokens typed in a text encoded as text: from_file read it
    # beside a tokenizer.json only, and matched "[MASK]" in text here.
    "split-special-tokens": {"tokenizer_class": "BertTokenizer", "split_special_tokens": True},
}
AIMED += [
    "a  [MASK]  b [unused3] [unused5]  [unused6] x[unused7]y [unused8]",
    "Don't stop , ok ? I'm here . Isn't it !",
]
TEXTS = LINES + AIMED + list(ADVERSARIAL)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_a_slow_tokenizers_folder_loads_as_transformers_loads_it(tmp_path: Path, name: str) -> None:
    from transformers import AutoTokenizer

    folder = _folder(tmp_path, name, CONFIGS[name])
    hf = AutoTokenizer.from_pretrained(folder)
    tok = wpiece.Tokenizer.from_file(folder)
    pairs = TEXTS[::-1]
    want = hf(TEXTS, pairs, return_token_type_ids=True)
    got = tok.encode_batch(TEXTS, pairs)
    assert [e.ids for e in got] == want["input_ids"]
    assert [e.type_ids for e in got] == want["token_type_ids"]
    for e, text in zip(tok.encode_batch(TEXTS), TEXTS):
        want_one = hf(text, return_offsets_mapping=True)
        assert e.ids == want_one["input_ids"], text
        assert [tuple(o) for o in e.offsets] == [tuple(o) for o in want_one["offset_mapping"]]
        assert tok.decode(e.ids) == hf.decode(e.ids, skip_special_tokens=True), text
        assert tok.decode(e.ids, False) == hf.decode(e.ids), text
    # The vocab.txt named itself is that file alone: BERT's defaults.
    alone = wpiece.Tokenizer.from_file(folder / "vocab.txt")
    assert alone.settings["lowercase"] is True and len(alone.get_added_tokens_decoder()) == 5
    # Options given override the config's.
    lowered = wpiece.Tokenizer.from_file(folder, lowercase=True)
    assert lowered.settings["lowercase"] is True


def test_special_tokens_map_json_beside_the_config_is_read_over_it(tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    folder = _folder(tmp_path, "map", {"tokenizer_class": "BertTokenizer"})
    special_map = {"unk_token": "[unused1]", "additional_special_tokens": ["[unused5]"]}
    (folder / "special_tokens_map.json").write_text(json.dumps(special_map), encoding="utf-8")
    hf, tok = AutoTokenizer.from_pretrained(folder), wpiece.Tokenizer.from_file(folder)
    for text in TEXTS:
        assert tok.encode(text).ids == hf(text)["input_ids"], text


DECODER = {"added_tokens_decoder": _decoder()}
# (config, special_tokens_map.json beside it): transformers 5 reads the map
# only without added_tokens_decoder, adds its lists to the config's, takes
# every *_token key as a special token and extra_special_tokens over
# additional_special_tokens; clean_up_tokenization_spaces by truth.
MAPS: dict[str, tuple[dict[str, Any] | None, dict[str, Any]]] = {
    "map-ignored-with-a-decoder": (
        {"tokenizer_class": "BertTokenizer", **DECODER},
        {"unk_token": "[MASK]", "additional_special_tokens": ["[unused1]"], "do_lower_case": False},
    ),
    "map-lists-added": (
        {"tokenizer_class": "BertTokenizer", "extra_special_tokens": ["[unused1]"]},
        {"extra_special_tokens": ["[unused2]"]},
    ),
    "map-without-a-config": (
        None,
        {"additional_special_tokens": ["[unused1]"], "do_lower_case": False},
    ),
    "extra-over-additional": (
        {
            "tokenizer_class": "BertTokenizer",
            "additional_special_tokens": ["[unused1]"],
            "extra_special_tokens": ["[unused2]"],
        },
        {},
    ),
    "any-token-key": ({"tokenizer_class": "BertTokenizer", "foo_token": "[unused3]"}, {}),
    "clean-up-by-truth": (
        {"tokenizer_class": "BertTokenizer", "clean_up_tokenization_spaces": 1},
        {},
    ),
}


@pytest.mark.parametrize("name", sorted(MAPS))
def test_special_tokens_maps_and_lists_as_transformers_reads_them(
    tmp_path: Path, name: str
) -> None:
    from transformers import AutoTokenizer

    config, special_map = MAPS[name]
    folder = _folder(tmp_path, name, config)
    if special_map:
        (folder / "special_tokens_map.json").write_text(json.dumps(special_map), "utf-8")
    if config is None:
        (folder / "config.json").write_text('{"model_type": "bert"}', encoding="utf-8")
    hf, tok = AutoTokenizer.from_pretrained(folder), wpiece.Tokenizer.from_file(folder)
    texts = [*TEXTS[:40], "[unused1] [unused2] [unused3] \u2603 Turn [MASK]", *AIMED]
    for text in texts:
        ids = hf(text)["input_ids"]
        assert tok.encode(text).ids == ids, text
        assert tok.decode(ids) == hf.decode(ids, skip_special_tokens=True), text


@pytest.mark.parametrize("key", ["additional_special_tokens", "extra_special_tokens"])
def test_a_list_of_tokens_given_as_a_string_is_refused(tmp_path: Path, key: str) -> None:
    # It was read as a list of its chars, each one special.
    folder = _folder(tmp_path, "string", {"tokenizer_class": "BertTokenizer", key: "[unused1]"})
    with pytest.raises(ValueError, match=f"{key} must be a list"):
        wpiece.Tokenizer.from_file(folder)


@pytest.mark.parametrize(
    ("lacked", "config"),
    [
        (["[MASK]"], {}),
        (["[PAD]"], {}),
        (["[CLS]", "[SEP]", "[UNK]"], {}),
        (["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"], {}),
        (["[MASK]"], {"additional_special_tokens": ["<new>", "<two>", "[unused1]"]}),
        (["[MASK]"], {"bos_token": "<b>", "additional_special_tokens": ["<new>"]}),
        ([], {"unk_token": "<unk>", "extra_special_tokens": ["<new>"]}),
        (["bom"], {}),  # a byte-order mark: its first line is "\ufeff[PAD]", not [PAD]
    ],
)
def test_special_tokens_vocab_txt_lacks_are_added_as_transformers_adds_them(
    tmp_path: Path, lacked: list[str], config: dict[str, Any]
) -> None:
    # wpiece left them out: "[MASK]" encoded as [, mask, ], padding was a
    # ValueError, and without [CLS] no input was framed.
    from transformers import AutoTokenizer

    folder = _folder(tmp_path, "lacking", {"tokenizer_class": "BertTokenizer", **config})
    lines = [t for t in _vocab() if t not in lacked]
    if lacked == ["bom"]:
        lines[0] = "\ufeff" + lines[0]
    (folder / "vocab.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    hf, tok = AutoTokenizer.from_pretrained(folder), wpiece.Tokenizer.from_file(folder)
    assert len(tok) == len(hf)
    texts = ["Turn [MASK] on <new> [PAD]x <b> [CLS] <unk>", "short", *AIMED]
    unk = hf.unk_token
    if unk not in lines:
        # HF's WordPiece then raises at an unknown word (its unknown token is
        # no vocab entry), where wpiece gives the one transformers added.
        assert tok.encode("Turn ☃").tokens[-2] == unk
        with pytest.raises(Exception, match="Missing .* token from the vocabulary"):
            hf("Turn ☃")
        texts = [t for t in texts if unk not in tok.encode(t).tokens]
    for text in texts:
        assert tok.encode(text).ids == hf(text)["input_ids"], text
    assert [e.ids for e in tok.encode_batch(texts, texts[::-1], padding=True)] == hf(
        texts, texts[::-1], padding=True
    )["input_ids"]


def test_a_lacked_special_token_beside_added_ids_past_vocab_txt_is_refused(tmp_path: Path) -> None:
    # Its id would follow the decoder's, which come after vocab.txt's.
    lines = [t for t in _vocab() if t != "[MASK]"]
    new = {str(len(lines)): {"content": "<new>", **SPECIAL, "special": True}}
    folder = _folder(
        tmp_path, "past", {"tokenizer_class": "BertTokenizer", "added_tokens_decoder": new}
    )
    (folder / "vocab.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(wpiece.UnsupportedComponentError, match="lack ids"):
        wpiece.Tokenizer.from_file(folder)


def test_a_folder_without_a_config_is_its_vocab_txt(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "plain", None)
    tok, alone = (
        wpiece.Tokenizer.from_file(folder),
        wpiece.Tokenizer.from_file(folder / "vocab.txt"),
    )
    assert [e.ids for e in tok.encode_batch(TEXTS)] == [e.ids for e in alone.encode_batch(TEXTS)]


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"tokenizer_class": "MPNetTokenizer"}, "MPNetTokenizer"),
        ({"tokenizer_class": "BertTokenizer", "cls_token": "<s>"}, "cls_token '<s>'"),
        ({"tokenizer_class": "BertTokenizer", "sep_token": {"content": "</s>"}}, "sep_token"),
        ({"tokenizer_class": "BertTokenizer", "do_basic_tokenize": False}, "do_basic_tokenize"),
        ({"tokenizer_class": "BertTokenizer", "never_split": ["[X]"]}, "never_split"),
    ],
)
def test_what_would_be_read_otherwise_is_refused_by_name(
    tmp_path: Path, config: dict[str, Any], named: str
) -> None:
    folder = _folder(tmp_path, "refused", config)
    with pytest.raises(wpiece.UnsupportedComponentError, match=named) as e:
        wpiece.Tokenizer.from_file(folder)
    assert "from_hf" in str(e.value)


def test_hostile_configs_are_clear_errors(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "hostile", None)
    config = folder / "tokenizer_config.json"
    for text, error in [
        ("{not json", ValueError),
        ("[1, 2]", ValueError),
        (json.dumps({"added_tokens_decoder": {"x": {"content": "a"}}}), ValueError),
        (json.dumps({"added_tokens_decoder": {"5": {"special": True}}}), ValueError),
        (json.dumps({"added_tokens_decoder": [1]}), ValueError),
        (json.dumps({"do_lower_case": "yes"}), TypeError),
        # transformers refuses these sides when it loads the folder.
        (json.dumps({"padding_side": "middle"}), ValueError),
        (json.dumps({"truncation_side": 5}), ValueError),
    ]:
        config.write_text(text, encoding="utf-8")
        with pytest.raises(error, match="tokenizer_config.json|lowercase"):
            wpiece.Tokenizer.from_file(folder)
    config.unlink()
    (folder / "added_tokens.json").write_text('{"x": 40000}', encoding="utf-8")
    with pytest.raises(wpiece.UnsupportedComponentError, match="added_tokens.json"):
        wpiece.Tokenizer.from_file(folder)


def test_a_fast_folders_config_adds_what_tokenizer_json_cannot_hold(
    tmp_path: Path, en_lines: list[str]
) -> None:
    """save_pretrained writes split_special_tokens and
    clean_up_tokenization_spaces in the config beside tokenizer.json, and
    AutoTokenizer applies them: from_file(folder) dropped both."""
    from transformers import AutoTokenizer

    base = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    texts = [*en_lines[:80], "Don't [SEP] stop , ok ? I'm [MASK] here ."]
    for split in (False, True):
        for clean in (False, True):
            base.encode_special_tokens, base.clean_up_tokenization_spaces = split, clean
            folder = tmp_path / f"{split}-{clean}"
            base.to_transformers().save_pretrained(folder)
            hf, tok = AutoTokenizer.from_pretrained(folder), wpiece.Tokenizer.from_file(folder)
            assert (tok.encode_special_tokens, tok.clean_up_tokenization_spaces) == (split, clean)
            for text in texts:
                ids = hf(text)["input_ids"]
                assert tok.encode(text).ids == ids, text
                assert tok.decode(ids) == hf.decode(ids, skip_special_tokens=True), text


def test_added_tokens_matching_the_same_text_in_a_slow_folder_are_warned_of(
    tmp_path: Path,
) -> None:
    # tokenizer.json, add_tokens and pickles warned; a slow folder's
    # added_tokens_decoder was added past the warning.
    added = {
        str(len(_vocab()) + k): {**SPECIAL, "content": t, "normalized": True, "special": False}
        for k, t in enumerate(["Zork", "zork"])
    }
    config = {"tokenizer_class": "BertTokenizer", "added_tokens_decoder": _decoder(**added)}
    folder = _folder(tmp_path, "shared", config)
    with pytest.warns(UserWarning, match=r"'Zork', 'zork' match the same text 'zork'"):
        tok = wpiece.Tokenizer.from_file(folder)
    assert tok.encode("ZORK", add_special_tokens=False).ids == [len(_vocab())]


@pytest.mark.parametrize(
    "flags",
    [
        {},
        {"do_lower_case": True},
        {"do_lower_case": False},
        {"do_lower_case": False, "strip_accents": True},
        {"tokenize_chinese_chars": False, "strip_accents": False},
    ],
)
def test_a_bert_class_sets_the_bert_normalizer_of_its_tokenizer_json(
    tmp_path: Path, flags: dict[str, Any]
) -> None:
    # transformers sets a BERT-like class's BertNormalizer from the config's
    # flags (BERT's defaults where absent), over tokenizer.json's: a cased
    # tokenizer saved through BertTokenizerFast (do_lower_case true by
    # default) is lowercased; wpiece followed tokenizer.json.
    from tokenizers import normalizers
    from transformers import AutoTokenizer

    hf = _hf_bert(cased=True)
    hf.add_special_tokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    folder = _folder(tmp_path, "cased", {"tokenizer_class": "BertTokenizer", **flags})
    hf.save(str(folder / "tokenizer.json"))
    want, tok = AutoTokenizer.from_pretrained(folder), wpiece.Tokenizer.from_file(folder)
    for text in [*TEXTS[:40], *AIMED]:
        assert tok.encode(text).ids == want(text)["input_ids"], (flags, text)
    # Another normalizer is kept (as transformers 4 keeps it; 5 rebuilds
    # the whole BERT pipeline from the class).
    hf.normalizer = normalizers.Sequence([normalizers.NFC()])
    hf.save(str(folder / "tokenizer.json"))
    assert wpiece.Tokenizer.from_file(folder).tokenize("Über") == ["Über"]
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "BertTokenizer", "do_lower_case": "yes"}), encoding="utf-8"
    )
    with pytest.raises(ValueError, match="do_lower_case must be true or false"):
        wpiece.Tokenizer.from_file(folder)


@pytest.mark.parametrize(
    "config",
    [
        {"tokenizer_class": "BertTokenizer"},
        {"mask_token": "[MASK]", "additional_special_tokens": ["<new>", "<two>", "[unused1]"]},
        {"tokenizer_class": "BertTokenizer", "bos_token": "<b>", "extra_special_tokens": ["<new>"]},
        {"eos_token": "</e>", "pad_token": "[PAD]"},
    ],
)
def test_special_tokens_a_config_names_beside_tokenizer_json_are_added(
    tmp_path: Path, config: dict[str, Any]
) -> None:
    # transformers adds the special tokens its config names (a BERT class's
    # own by default) that tokenizer.json's added tokens lack: "[MASK]" was
    # encoded as [, mask, ] and "<new>" as text.
    from transformers import AutoTokenizer

    hf = _hf_bert(cased=False)
    folder = _folder(tmp_path, "named", config)
    hf.save(str(folder / "tokenizer.json"))
    want, tok = AutoTokenizer.from_pretrained(folder), wpiece.Tokenizer.from_file(folder)
    assert len(tok) == len(want)
    texts = ["a [MASK] b<new>c [PAD] <b>x </e> y [unused1] [SEP]", *AIMED, *TEXTS[:20]]
    for text in texts:
        got = tok.encode(text).ids
        assert got == want(text)["input_ids"], (config, text)
        assert tok.decode(got) == want.decode(got, skip_special_tokens=True), text


@pytest.mark.parametrize(
    "kind",
    [
        "ConvBertTokenizer",  # keeps tokenizer.json's normalizer, adds BERT's special tokens
        "DPRQuestionEncoderTokenizerFast",  # always lowercases, whatever the config says
        "DPRReaderTokenizer",
        "RetriBertTokenizer",  # gone from transformers 5: a plain backend
        "LxmertTokenizer",  # BERT's, from the config
    ],
)
@pytest.mark.parametrize("lower", [True, False])
def test_each_bert_like_class_builds_over_tokenizer_json_as_transformers_does(
    tmp_path: Path, kind: str, lower: bool
) -> None:
    # Every BERT-like class had BERT's normalizer and special tokens set
    # over tokenizer.json's: ConvBert, DPR and RetriBert differed.
    from transformers import AutoTokenizer

    hf = _hf_bert(cased=True)
    folder = _folder(tmp_path, "kind", {"tokenizer_class": kind, "do_lower_case": lower})
    hf.save(str(folder / "tokenizer.json"))
    want, tok = AutoTokenizer.from_pretrained(folder), wpiece.Tokenizer.from_file(folder)
    assert len(tok) == len(want)
    for text in ["Hello [MASK] Über Café", *AIMED, *TEXTS[:20]]:
        assert tok.encode(text).ids == want(text)["input_ids"], (kind, text)


@pytest.mark.filterwarnings("ignore:asked to truncate to max_length")
def test_a_config_naming_no_length_gets_transformers_per_call_rules(tmp_path: Path) -> None:
    # The Hub's bert-base-uncased config is {"do_lower_case": true}: with no
    # setting wpiece keeps, its calls got HF tokenizers' rules (max_length
    # alone did not cut, a multiple with nothing to pad raised, truncation
    # without a length raised where transformers does nothing).
    from transformers import AutoTokenizer

    from conftest import TOKENIZER_JSON

    data = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    data["truncation"] = data["padding"] = None
    folder = tmp_path / "hub"
    folder.mkdir()
    (folder / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    (folder / "tokenizer_config.json").write_text('{"do_lower_case": true}', encoding="utf-8")
    (folder / "config.json").write_text('{"model_type": "bert"}', encoding="utf-8")
    want, tok = AutoTokenizer.from_pretrained(folder), wpiece.Tokenizer.from_file(folder)
    texts = ["The simplest possible SQL function has no arguments", "a b"]
    for call in ({"max_length": 6}, {"pad_to_multiple_of": 8}, {"truncation": True}):
        assert [e.ids for e in tok.encode_batch(texts, **call)] == want(texts, **call)["input_ids"]
    refused = {"padding": True, "truncation": True, "max_length": 10, "pad_to_multiple_of": 4}
    with pytest.raises(ValueError, match="not a multiple of pad_to_multiple_of"):
        tok.encode_batch(texts, **refused)


@pytest.mark.parametrize("model_type", ["bert", "convbert", "dpr", "lxmert"])
@pytest.mark.parametrize("config", [{}, {"do_lower_case": False}])
def test_a_config_naming_no_class_takes_the_model_types(
    tmp_path: Path, model_type: str, config: dict[str, Any]
) -> None:
    # AutoTokenizer takes the class from config.json's model_type (bert's is
    # BertTokenizer, lowercasing by default): a cased tokenizer.json beside a
    # config naming no class was read cased, "[MASK]" as text.
    from transformers import AutoTokenizer

    hf = _hf_bert(cased=True)
    folder = _folder(tmp_path, "typed", config)
    hf.save(str(folder / "tokenizer.json"))
    (folder / "config.json").write_text(json.dumps({"model_type": model_type}), encoding="utf-8")
    want, tok = AutoTokenizer.from_pretrained(folder), wpiece.Tokenizer.from_file(folder)
    assert len(tok) == len(want)
    for text in ["Hello [MASK] Über Café", *AIMED, *TEXTS[:20]]:
        assert tok.encode(text).ids == want(text)["input_ids"], (model_type, text)
