"""A folder transformers saved, read as transformers reads it.

With ``tokenizer.json``, the config adds what that file cannot hold and
transformers applies on top: ``split_special_tokens`` and
``clean_up_tokenization_spaces`` (:func:`call_flags`).

A slow tokenizer's folder (``vocab.txt`` with ``tokenizer_config.json`` and
no ``tokenizer.json``: older checkpoints, and every cased one among them) is
built from both, as transformers builds it: ``do_lower_case``,
``strip_accents``, ``tokenize_chinese_chars`` and ``unk_token`` set the BERT
pipeline, the special tokens the config (and ``special_tokens_map.json``)
names and ``added_tokens_decoder`` are added (:func:`folder_config`). What
the config holds that wpiece would read otherwise than transformers is
refused by name, never dropped.

>>> import json, os, tempfile
>>> d = tempfile.mkdtemp()
>>> with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
...     json.dump({"tokenizer_class": "BertTokenizer", "do_lower_case": False}, f)
>>> _ = open(os.path.join(d, "vocab.txt"), "w").write("[UNK]\\na\\n")
>>> folder_config(Path(d) / "vocab.txt").options["lowercase"]
False
>>> call_flags(Path(d))
(False, False)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from . import _core
from .persistence import (
    CARRIED_KEY,
    CHAT_TEMPLATE_DIR,
    CHAT_TEMPLATE_FILE,
    CLEAN_UP_KEY,
    CONFIG_FILE,
    SETTINGS_FILE,
    read_json_object,
)
from .transformers_bridge import (
    _SETTINGS_KEY,
    CALL_SETTINGS,
    checked_chat_template,
    checked_side,
)

__all__ = [
    "FolderConfig",
    "call_flags",
    "call_settings",
    "chat_template",
    "folder_config",
    "over_tokenizer_json",
    "own_settings",
]

# The transformers classes that build BERT's pipeline (BertConverter) from a
# vocab.txt; others (MPNet, Funnel, Splinter) frame inputs otherwise.
_BERT_LIKE = {
    "Bert",
    "DistilBert",
    "Electra",
    "MobileBert",
    "SqueezeBert",
    "LayoutLM",
    "ConvBert",
    "RetriBert",
    "Lxmert",
    "DPRContextEncoder",
    "DPRQuestionEncoder",
    "DPRReader",
}
_CLASSES = {f"{name}Tokenizer{fast}" for name in _BERT_LIKE for fast in ("", "Fast")}
# How transformers 5 builds these classes over a tokenizer.json (either name
# of each gives the slow class): most rebuild BERT's normalizer from the
# config's flags, DPR's always lowercasing (its own __init__ takes
# do_lower_case and drops it); ConvBert keeps tokenizer.json's; RetriBert,
# gone from transformers 5, is a plain backend that adds no BERT special
# tokens either.
_NORMALIZER_FROM_CONFIG = _BERT_LIKE - {"ConvBert", "RetriBert"}
_ALWAYS_LOWERCASED = {"DPRContextEncoder", "DPRQuestionEncoder", "DPRReader"}


# transformers' model_max_length when a config names none (VERY_LARGE_INTEGER).
_NO_LIMIT = int(1e30)


def _bert_like(config: dict[str, Any]) -> Optional[str]:
    """The BERT-like model a config's ``tokenizer_class`` names, if any."""
    kind = config.get("tokenizer_class")
    if kind not in _CLASSES:
        return None
    return str(kind).removesuffix("Fast").removesuffix("Tokenizer")


# The config's keys for the BERT pipeline, and from_file's names for them.
_OPTIONS = {
    "do_lower_case": "lowercase",
    "strip_accents": "strip_accents",
    "tokenize_chinese_chars": "handle_chinese_chars",
}
# The special tokens wpiece's BERT pipeline frames inputs with.
_FRAMING = {
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "pad_token": "[PAD]",
    "mask_token": "[MASK]",
}


@dataclass(frozen=True)
class FolderConfig:
    """The vocabulary (vocab.txt's lines, then the special tokens they lack,
    as transformers adds them), ``from_file`` options, added tokens in id
    order as ``(content, single_word, lstrip, rstrip, normalized, special)``,
    whether decoding cleans up spaces as transformers does, and whether
    special tokens typed in a text are encoded as text
    (``split_special_tokens``)."""

    vocab: list[str]
    options: dict[str, Any] = field(default_factory=dict)
    added: list[tuple[str, bool, bool, bool, bool, bool]] = field(default_factory=list)
    clean_up: bool = False
    split_special_tokens: bool = False


def _refuse(folder: Path, what: str) -> _core.UnsupportedComponentError:
    return _core.UnsupportedComponentError(
        f"{folder / CONFIG_FILE}: {what}; load it with "
        "wpiece.Tokenizer.from_hf(transformers.AutoTokenizer.from_pretrained(folder))"
    )


Spec = tuple[str, bool, bool, bool, bool, bool]
_FLAGS = ("single_word", "lstrip", "rstrip", "normalized", "special")


def _token_text(value: Any) -> Any:
    """A special token as a config names it: a string, or an AddedToken's dict."""
    return value.get("content") if isinstance(value, dict) else value


def _special_spec(value: Any, where: Path, role: bool = True) -> Spec:
    """A special token the config names, with its flags when it gives them
    (an AddedToken's dict); a role's token (cls, mask...) is special
    whatever its dict says, another one given as a dict only if it says so,
    as transformers marks them."""
    content = _token_text(value)
    if not isinstance(content, str) or not content:
        raise ValueError(f"{where}: special token {value!r} is not a token")
    given = value if isinstance(value, dict) else {}
    special = role or not given or bool(given.get("special", False))
    flags = (bool(given.get(f, False)) for f in _FLAGS[:-1])
    return (content, *flags, special)  # type: ignore[return-value]


def _decoder_specs(config: dict[str, Any], path: Path) -> list[Spec]:
    """``added_tokens_decoder``'s tokens, in id order."""
    decoder = config.get("added_tokens_decoder") or {}
    if not isinstance(decoder, dict):
        raise ValueError(f"{path}: added_tokens_decoder is not an object")
    try:
        entries = sorted(decoder.items(), key=lambda item: int(item[0]))
    except ValueError:
        raise ValueError(f"{path}: added_tokens_decoder keys are not ids") from None
    specs = []
    for key, t in entries:
        content = t.get("content") if isinstance(t, dict) else None
        if not isinstance(content, str):
            raise ValueError(f"{path}: added token {key} has no content")
        specs.append((content, *(bool(t.get(f, False)) for f in _FLAGS)))
    return specs  # type: ignore[return-value]


_LISTS = ("additional_special_tokens", "extra_special_tokens")


def _listed(config: dict[str, Any], key: str, path: Path) -> list[Any]:
    """A list of special tokens (``extra_special_tokens`` may be a dict)."""
    value = config.get(key) or []
    if isinstance(value, dict) and key == "extra_special_tokens":
        value = list(value.values())
    if not isinstance(value, list):
        raise ValueError(f"{path}: {key} must be a list of tokens, got {value!r}")
    return value


def _extra_specials(config: dict[str, Any], path: Path) -> list[Any]:
    """The special tokens named beyond the framing ones and unk, as
    transformers 5 takes them: every other ``*_token`` key, then
    ``additional_special_tokens`` unless ``extra_special_tokens`` is a
    list (a dict of named ones comes beside them)."""
    roles = {*_FRAMING, "unk_token"}
    extra = [v for k, v in config.items() if k.endswith("_token") and k not in roles]
    named = _listed(config, "extra_special_tokens", path)
    additional = _listed(config, "additional_special_tokens", path)
    if isinstance(config.get("extra_special_tokens"), dict) or not named:
        # Named ones (a dict) come beside the additional ones; a list of
        # them stands in their place.
        extra += additional
    extra += named
    return [t for t in extra if isinstance(t, (str, dict))]


def _with_special_tokens_map(config: dict[str, Any], folder: Path) -> dict[str, Any]:
    """``config`` with ``special_tokens_map.json`` read over it, as
    transformers reads it: only without ``added_tokens_decoder``, its lists
    added to the config's."""
    path = folder / "special_tokens_map.json"
    if config.get("added_tokens_decoder") or not path.is_file():
        return config
    extra = read_json_object(path)
    merged = {**config, **extra}
    for key in _LISTS:
        if key in config and key in extra:
            merged[key] = _listed(config, key, path) + _listed(extra, key, path)
    return merged


def folder_config(vocab_txt: Path, given_folder: bool = True) -> FolderConfig:
    """What the tokenizer config in the folder of ``vocab_txt`` (and
    ``special_tokens_map.json`` over it, as transformers reads them) says of
    the tokenizer that ``vocab.txt`` makes: nothing without a config, or when
    the vocab.txt itself was named (``given_folder`` False: that file alone
    is meant)."""
    # Lines as HF reads them: split at "\n" only, trailing whitespace dropped.
    vocab, folder = list(_core.read_vocab_txt(vocab_txt)), vocab_txt.parent
    if not given_folder:
        return FolderConfig(vocab)
    path = folder / CONFIG_FILE
    if (folder / "added_tokens.json").exists():
        raise _refuse(folder, "added_tokens.json beside it is not read")
    config = read_json_object(path) if path.is_file() else {}
    config = _with_special_tokens_map(config, folder)
    if not config or _SETTINGS_KEY in config:
        # A config wpiece's folder save wrote goes with a tokenizer.json;
        # without one (a save replacing the set, or removed since) the
        # vocab.txt alone is what the folder holds.
        return FolderConfig(vocab)
    kind = config.get("tokenizer_class")
    if kind is not None and kind not in _CLASSES:
        raise _refuse(folder, f"tokenizer_class {kind!r} is not a BERT-like WordPiece tokenizer")
    if config.get("do_basic_tokenize", True) is not True:
        raise _refuse(folder, "do_basic_tokenize other than true")
    if config.get("never_split"):
        raise _refuse(folder, "never_split")
    for role, name in _FRAMING.items():
        given = _token_text(config.get(role, name))
        if given != name:
            raise _refuse(folder, f"{role} {given!r} (wpiece frames BERT inputs with {name!r})")
    options: dict[str, Any] = {
        ours: config[theirs] for theirs, ours in _OPTIONS.items() if theirs in config
    }
    unk = _special_spec(config.get("unk_token", "[UNK]"), path)[0]
    options["unk_token"] = unk
    # The special tokens are the ones the config names, as in transformers
    # (with unk_token named otherwise, "[UNK]" is plain text).
    roles = [_FRAMING["pad_token"], unk, _FRAMING["cls_token"], _FRAMING["sep_token"]]
    options["special_tokens"] = list(dict.fromkeys([*roles, _FRAMING["mask_token"]]))
    # added_tokens_decoder gives ids and flags; special tokens named only
    # elsewhere (with flags of their own, or beyond the framing ones) follow.
    added = _decoder_specs(config, path)
    listed = {spec[0] for spec in added}
    extra = _extra_specials(config, path)
    named = _named_specials(config, path, {**_FRAMING, "unk_token": unk})
    lacked = _lacked(set(vocab) | listed, named)
    if lacked and not listed <= set(vocab):
        # Their ids would follow those added_tokens_decoder gives past vocab.txt.
        raise _refuse(folder, f"special tokens {lacked} lack ids, beside added_tokens_decoder's")
    vocab += lacked
    by_role = [(config.get(name), True) for name in (*_FRAMING, "unk_token")]
    for value, is_role in [*by_role, *((t, False) for t in extra)]:
        if value is None or (isinstance(value, str) and value in options["special_tokens"]):
            continue
        spec = _special_spec(value, path, is_role)
        if spec[0] in listed:
            continue
        added.append(spec)
        listed.add(spec[0])
    clean_up = bool(config.get("clean_up_tokenization_spaces", False))
    split = bool(config.get("split_special_tokens", False))
    return FolderConfig(vocab, options, added, clean_up, split)


# transformers' special-token roles, in the order it adds their tokens.
_ROLES = (
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
)


def _named_specials(
    config: dict[str, Any], path: Path, defaults: dict[str, str]
) -> list[tuple[Any, bool]]:
    """The special tokens a config names, each with whether a role names it,
    in the order transformers adds them: its roles (``defaults`` where it
    names none), then the others."""
    roles = [(config.get(role, defaults.get(role)), True) for role in _ROLES]
    others = [(t, False) for t in _extra_specials(config, path)]
    return [(value, role) for value, role in roles if value is not None] + others


def _lacked(held: set[str], named: list[tuple[Any, bool]]) -> list[str]:
    """The ``named`` special tokens (see :func:`_named_specials`) that
    neither vocab.txt nor ``added_tokens_decoder`` holds (``held``), which
    transformers adds after the vocabulary, in that order."""
    texts = [_token_text(value) for value, _ in named]
    return [t for t in dict.fromkeys(texts) if isinstance(t, str) and t and t not in held]


def over_tokenizer_json(folder: Path, paired: Optional[dict[str, Any]], core: Any) -> Any:
    """``core``, the tokenizer.json of ``folder`` read with its config
    ``paired``, as transformers changes it when it loads the folder (see
    :func:`_class_normalizer` and :func:`_config_specials`); a config that
    names no class takes the one AutoTokenizer takes for the model's type."""
    if paired is not None and "tokenizer_class" not in paired and _SETTINGS_KEY not in paired:
        kind = _MODEL_TYPES.get(_model_type(folder) or "")
        paired = paired if kind is None else {**paired, "tokenizer_class": kind}
    return _config_specials(folder, paired, _class_normalizer(folder, paired, core))


# The BERT-like tokenizer classes AutoTokenizer (transformers 5) takes for a
# model's config.json model_type when the tokenizer config names none.
_MODEL_TYPES = {
    **dict.fromkeys(
        ("bert", "distilbert", "electra", "squeezebert", "layoutlm", "convbert", "retribert"),
        "BertTokenizer",
    ),
    "mobilebert": "MobileBertTokenizer",
    "lxmert": "LxmertTokenizer",
    "dpr": "DPRQuestionEncoderTokenizer",
}


def _model_type(folder: Path) -> Optional[str]:
    """The ``model_type`` of the folder's ``config.json`` (None without a
    readable one: its tokenizer.json alone then says how to tokenize)."""
    try:
        value = read_json_object(folder / "config.json").get("model_type")
    except (OSError, ValueError):
        return None
    return value if isinstance(value, str) else None


def _config_specials(folder: Path, paired: Optional[dict[str, Any]], core: Any) -> Any:
    """``core`` with the special tokens the config names (a BERT-like
    class's own where it names none) that tokenizer.json's added tokens
    lack, added as transformers 4 and 5 add them: special, matched in raw
    text, one outside the vocabulary at the next id, in transformers' order
    (bos, eos, unk, sep, pad, cls, mask, then the others). A config a
    wpiece save wrote goes with its tokenizer.json as it is."""
    if not paired or _SETTINGS_KEY in paired:
        return core
    config, path = _with_special_tokens_map(paired, folder), folder / CONFIG_FILE
    bert = _bert_like(config) not in (None, "RetriBert")
    defaults: dict[str, str] = {**_FRAMING, "unk_token": "[UNK]"} if bert else {}
    held = {spec[0] for _, spec in core.added_tokens()}
    specs = []
    for value, role in _named_specials(config, path, defaults):
        spec = _special_spec(value, path, role)
        if spec[0] not in held:
            specs.append(spec)
            held.add(spec[0])
    if specs:
        core.add_tokens(specs)
    return core


def _class_normalizer(folder: Path, paired: Optional[dict[str, Any]], core: Any) -> Any:
    """``core``, the tokenizer.json of ``folder`` read with its config
    ``paired``, with the flags a BERT-like ``tokenizer_class`` gives its
    ``BertNormalizer``: transformers lowercases, strips accents and splits
    Chinese characters as the config's ``do_lower_case``, ``strip_accents``
    and ``tokenize_chinese_chars`` say (BERT's defaults where it names
    none), over what tokenizer.json holds (a cased tokenizer saved through
    ``BertTokenizerFast`` with the default ``do_lower_case`` is lowercased),
    for the classes ``_NORMALIZER_FROM_CONFIG`` names."""
    name = _bert_like(paired) if paired else None
    if name not in _NORMALIZER_FROM_CONFIG:
        return core
    wanted = {"lowercase": True, "strip_accents": None, "handle_chinese_chars": True}
    for theirs, ours in _OPTIONS.items():
        value = paired.get(theirs, wanted[ours]) if paired else None
        if not isinstance(value, bool) and (value is not None or ours != "strip_accents"):
            raise ValueError(
                f"{folder / CONFIG_FILE}: {theirs} must be true or false, got {value!r:.80}"
            )
        wanted[ours] = value
    if name in _ALWAYS_LOWERCASED:
        wanted["lowercase"] = True
    settings = core.settings()
    if settings["pipeline"] == "bert":
        if all(settings[key] == value for key, value in wanted.items()):
            return core
        return core.with_options(**wanted, set_strip_accents=True)
    # Other components around it: its fields in the tokenizer.json form.
    data = json.loads(core.to_json())
    normalizer = data.get("normalizer") or {}
    if normalizer.get("type") != "BertNormalizer":  # another one: transformers 4 keeps it
        return core
    if all(normalizer.get(key) == value for key, value in wanted.items()):
        return core
    data["normalizer"] = {**normalizer, **wanted}
    return _core.Tokenizer.from_json(json.dumps(data))


def own_settings(folder: Path, paired: Optional[dict[str, Any]], core: Any) -> dict[str, Any]:
    """Sets the truncation and padding of ``core``, the tokenizer of
    ``folder`` read with the config ``paired``, to its own, and returns the
    sides and pad token its tokenizer.json implies. With a config (a
    transformers folder), transformers truncates and pads per call and sets
    its backend each time, so what the tokenizer.json holds is what the last
    call left when it was saved, not the tokenizer's; it only takes the
    sides and pad token from it where the config names none. A config a
    wpiece folder save wrote keeps the tokenizer's own settings (a pad token
    of None: the config's ``pad_token``). Without a config, or outside a
    folder or for a wpiece settings file (``paired`` None), the tokenizer's
    settings stand."""
    from ._args import _padding_spec, _truncation_spec

    if paired is None or (not paired and not (folder / CONFIG_FILE).is_file()):
        return {}
    implied: dict[str, Any] = {}
    truncation, padding = core.truncation, core.padding
    if padding is not None:
        implied.update(padding_side=padding["direction"], pad_token=padding["pad_token"])
    if truncation is not None:
        implied["truncation_side"] = truncation["direction"]
    kept = paired.get(_SETTINGS_KEY)
    if not isinstance(kept, dict):
        kept = {}
    padding = kept.get("padding")
    if isinstance(padding, dict) and padding.get("pad_token") is None:
        pad = _token_text(_with_special_tokens_map(paired, folder).get("pad_token"))
        if not isinstance(pad, str):
            raise ValueError(
                f"{folder / CONFIG_FILE}: {_SETTINGS_KEY} pads with the tokenizer's pad "
                "token, and the config names none"
            )
        padding = {**padding, "pad_token": pad}
    core.set_truncation(_truncation_spec(kept.get("truncation")))
    core.set_padding(_padding_spec(padding))
    return implied


def call_flags(
    folder: Path, paired: Optional[dict[str, Any]] = None
) -> Optional[tuple[bool, bool]]:
    """``split_special_tokens`` and ``clean_up_tokenization_spaces`` as the
    config read with the folder's tokenizer.json (``paired``) sets them;
    else as the wpiece settings file a folder save wrote for a tokenizer
    without a tokenizer.json form says (its ``encode_special_tokens``, and
    the clean-up saved beside: a config there is another set's, a save
    replacing this one); else as the folder's config does; None if none is
    there (what the tokenizer file says stands)."""
    path, saved = folder / CONFIG_FILE, folder / SETTINGS_FILE
    if paired is None and saved.is_file():
        settings = read_json_object(saved)
        split, clean = settings.get("encode_special_tokens"), settings.get(CLEAN_UP_KEY)
    elif paired is not None or path.is_file():
        config = paired if paired is not None else read_json_object(path)
        split, clean = config.get("split_special_tokens"), config.get(CLEAN_UP_KEY)
    else:
        return None
    return bool(split), bool(clean)


def call_settings(
    folder: Path, paired: Optional[dict[str, Any]] = None, implied: Optional[dict[str, Any]] = None
) -> dict[str, Any]:
    """What ``folder``'s config (``paired``: as read with its tokenizer.json)
    says of the settings transformers applies per call (``model_max_length``,
    ``padding_side``, ``truncation_side``, ``model_input_names``, else its
    ``tokenizer_class``'s, its pad token), and its chat template
    (:func:`chat_template`), as :meth:`wpiece.Tokenizer.to_transformers`
    gives them back; the sides and pad token the config does not name, as
    its tokenizer.json implies them (``implied``, see :func:`own_settings`),
    as transformers takes them. A folder save's wpiece settings file (a
    tokenizer tokenizer.json cannot express) holds them itself."""
    path, saved = folder / CONFIG_FILE, folder / SETTINGS_FILE
    config: dict[str, Any] = {}
    transformers_config = False
    if paired is None and saved.is_file():
        config, path = _carried_in(saved), saved  # a config there is another set's
    elif paired is not None or path.is_file():
        config = paired if paired is not None else read_json_object(path)
        transformers_config = _SETTINGS_KEY not in config
    keys = (*CALL_SETTINGS, "tokenizer_class")  # the class, for its model_input_names
    found = {key: config[key] for key in keys if config.get(key) is not None}
    if transformers_config:
        # One that names no length: transformers' "no limit".
        found.setdefault("model_max_length", _NO_LIMIT)
    for key in ("padding_side", "truncation_side"):
        # As transformers refuses them when it loads the folder.
        checked_side(found.get(key), key, str(path))
    # The pad token transformers pads a call with (the config's, or its
    # special_tokens_map.json's).
    pad = _token_text(_with_special_tokens_map(config, folder).get("pad_token"))
    if isinstance(pad, str):
        found["pad_token"] = pad
    for key, value in (implied or {}).items():
        found.setdefault(key, value)
    if path == saved:
        template = checked_chat_template(config.get("chat_template"), str(saved))
    else:
        template = chat_template(folder, config)
    return found if template is None else {**found, "chat_template": template}


def _carried_in(saved: Path) -> dict[str, Any]:
    """What a wpiece settings file says the tokenizer carries from transformers."""
    carried = read_json_object(saved).get(CARRIED_KEY, {})
    if not isinstance(carried, dict):
        raise ValueError(f"{saved}: {CARRIED_KEY} must be an object, got {carried!r:.80}")
    return carried


def chat_template(folder: Path, config: dict[str, Any]) -> Any:
    """The chat template AutoTokenizer gives a tokenizer of ``folder``, or
    None: its ``chat_template.jinja`` and ``additional_chat_templates/*.jinja``
    files first (a dict by name when there are several, the file's
    ``default``), else its ``config``'s ``chat_template`` (a list of named
    templates made a dict by name, as transformers makes it)."""
    templates: dict[str, str] = {}
    if (folder / CHAT_TEMPLATE_FILE).is_file():
        templates["default"] = _template_file(folder / CHAT_TEMPLATE_FILE)
    if (folder / CHAT_TEMPLATE_DIR).is_dir():
        for path in sorted((folder / CHAT_TEMPLATE_DIR).glob("*.jinja")):
            if path.is_file():  # as transformers globs them: a folder is no template
                templates[path.name.removesuffix(".jinja")] = _template_file(path)
    if templates:
        return templates["default"] if list(templates) == ["default"] else templates
    return checked_chat_template(config.get("chat_template"), str(folder / CONFIG_FILE))


def _template_file(path: Path) -> str:
    """A template file read as transformers reads it, in text mode: every
    line ending made "\\n"."""
    return _core.read_text(path).replace("\r\n", "\n").replace("\r", "\n")
