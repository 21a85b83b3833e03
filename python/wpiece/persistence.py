"""Saving a tokenizer (files and folders, each written atomically), finding
what a path holds when one is loaded, and its pickled state.

>>> import os, tempfile, wpiece
>>> tok = wpiece.Tokenizer(["[UNK]", "a", "##b"])
>>> d = tempfile.mkdtemp()
>>> tok.save(d)
>>> sorted(os.listdir(d))
['tokenizer.json', 'tokenizer_config.json', 'vocab.txt']
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional, Union

from . import _core
from ._args import _padding_spec, _truncation_spec
from .training_record import TrainingRecord

__all__ = ["core_from_state", "load", "save", "state"]

# What a folder save writes for a tokenizer tokenizer.json cannot express
# (per-character unknowns, an end-of-word suffix): the whole tokenizer, its
# settings and vocabulary (the vocab.txt beside it alone would load with
# BERT's defaults).
SETTINGS_FILE = "wpiece_tokenizer.json"
_SETTINGS_FORMAT = "wpiece tokenizer settings"
# transformers' config, written beside tokenizer.json (transformers_bridge.config).
CONFIG_FILE = "tokenizer_config.json"
# Whether decoding cleans up spaces, in a settings file (transformers' key).
CLEAN_UP_KEY = "clean_up_tokenization_spaces"
# The files a folder save writes; any of them the new set lacks is removed
# (a training report, report.png and report.html, describes the old set).
# transformers' own files describe the old set too: a stale
# special_tokens_map.json or added_tokens.json would change the tokens
# AutoTokenizer gives the new tokenizer.
_FOLDER_FILES = (
    "vocab.txt",
    "training_record.json",
    SETTINGS_FILE,
    CONFIG_FILE,
    "special_tokens_map.json",
    "added_tokens.json",
    "tokenizer.json",
    "report.png",
    "report.html",
)


def json_expressible(core: _core.Tokenizer) -> bool:
    s = core.settings()
    return s["unknown"] == "word" and not s["end_of_word_suffix"]


def _check_vocab_txt_holds_all(core: _core.Tokenizer) -> None:
    """vocab.txt holds the vocabulary only: refuse to drop added tokens."""
    size = len(core.get_vocab())
    outside = [content for id, (content, *_) in core.added_tokens() if id >= size]
    if outside:
        shown = ", ".join(repr(t) for t in outside[:5])
        raise ValueError(
            f"vocab.txt cannot hold the {len(outside)} added tokens outside the "
            f"vocabulary ({shown}); save as tokenizer.json or into a folder"
        )


def save(
    core: _core.Tokenizer,
    record: Optional[TrainingRecord],
    p: Path,
    extra: Sequence[tuple[str, bytes]] = (),
    config: Optional[Callable[[], dict[str, Any]]] = None,
    clean_up: bool = False,
) -> None:
    """See :meth:`wpiece.Tokenizer.save`. ``extra``: more files of a folder
    save's set (a training report's), as (name, contents); ``config``: the
    ``tokenizer_config.json`` a folder holds beside ``tokenizer.json``
    (transformers' settings), made only if written; ``clean_up``: whether
    decoding cleans up spaces, kept in a settings file (which has no config)."""
    folder = p.is_dir() or not p.suffix
    if folder and os.path.lexists(p) and not p.is_dir():
        # A path without a suffix is a folder save; creating it failed with
        # a bare "File exists".
        raise ValueError(
            f"{p} is a file, and a path without a suffix saves into a folder: name a "
            "folder, or a file ending in .json (tokenizer.json) or .txt (vocab.txt)"
        )
    if extra and not folder:
        raise ValueError(f"{p}: only a folder save holds more files")
    if folder:
        files: list[tuple[str, bytes]] = []
        try:
            files.append(("vocab.txt", core.vocab_txt().encode()))
        except ValueError:
            pass  # a token no line can hold: the other file holds the vocab
        if record is not None:
            text = json.dumps(record.to_dict(), ensure_ascii=False)
            files.append(("training_record.json", text.encode()))
        files.extend(extra)
        # Last: readers look for it first, so they see the old set until now.
        if json_expressible(core):
            if config is not None:
                made = {**_kept_from_config(p / CONFIG_FILE), **config()}
                text = json.dumps(made, ensure_ascii=False, indent=2)
                files.append((CONFIG_FILE, text.encode()))
            files.append(("tokenizer.json", core.to_json().encode()))
        else:
            # Whole, the vocabulary included: read once, it is one set.
            settings = {"format": _SETTINGS_FORMAT, "version": 1, **state(core)}
            settings[CLEAN_UP_KEY] = clean_up
            text = json.dumps(settings, ensure_ascii=False, indent=1)
            files.append((SETTINGS_FILE, text.encode()))
        written = {name for name, _ in files}
        stale = [n for n in _FOLDER_FILES if n not in written]
        _core.write_set_atomic(p, files, stale)
        return
    if p.suffix.lower() == ".json":
        _core.write_atomic(p, core.to_json().encode())
    else:
        _check_vocab_txt_holds_all(core)
        _core.write_atomic(p, core.vocab_txt().encode())


def _kept_from_config(path: Path) -> dict[str, Any]:
    """What a new config keeps of the folder's old one: its chat template,
    the model's (a BERT-family checkpoint rarely has one), not the old
    tokenizer's. An unreadable old config keeps nothing."""
    try:
        old = json.loads(_core.read_text(path)) if path.is_file() else {}
    except (OSError, ValueError):
        return {}
    if not isinstance(old, dict) or old.get("chat_template") is None:
        return {}
    return {"chat_template": old["chat_template"]}


def _json_form(core: _core.Tokenizer) -> Optional[str]:
    """The tokenizer.json of the tokenizer, or, when that format cannot
    express it, of its pipeline: a tokenizer.json's own pipeline (which only
    that format holds) with per-character unknowns is written with
    whole-word unknowns, and its settings say the rest. None for BERT
    options, which the settings hold."""
    if json_expressible(core):
        return core.to_json()
    if core.settings()["pipeline"] == "custom":
        return core.with_options(unknown="word", set_strip_accents=False).to_json()
    return None


def state(core: _core.Tokenizer) -> dict[str, Any]:
    """A tokenizer as plain values (its tokenizer.json when it has one)."""
    return {
        "vocab": core.get_vocab(),
        "json": _json_form(core),
        "settings": core.settings(),
        "truncation": core.truncation,
        "padding": core.padding,
        "cleanup": core.decoder_cleanup,
        "encode_special_tokens": core.encode_special_tokens,
        "added_tokens": [spec for _, spec in core.added_tokens()],
    }


# The options of Tokenizer.from_file that configure the BERT normalizer: given,
# they turn it on, as they do over a vocab.txt or a tokenizer.json.
_NORMALIZER_OPTIONS = ("lowercase", "strip_accents", "clean_text", "handle_chinese_chars")


def load_settings_file(path: Path, options: dict[str, Any]) -> _core.Tokenizer:
    """The tokenizer a folder save wrote as ``wpiece_tokenizer.json``, then
    ``options`` (as :meth:`wpiece.Tokenizer.from_file` takes them) over it."""
    try:
        saved = json.loads(_core.read_text(path))
    except ValueError as e:
        raise ValueError(f"{path}: not a wpiece settings file ({e})") from None
    keys = {"vocab", "json", "settings", "truncation", "padding", "cleanup", "added_tokens"}
    if (
        not isinstance(saved, dict)
        or saved.get("format") != _SETTINGS_FORMAT
        or saved.get("version") != 1
        or not keys <= set(saved)
        or not isinstance(saved["settings"], dict)
    ):
        raise ValueError(f"{path}: not a wpiece settings file of version 1")
    try:
        added = [tuple(spec) for spec in saved["added_tokens"]]  # JSON made them lists
        state = {**saved, "added_tokens": added}
        core = core_from_state(state)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: {e}") from None
    if not options:
        return core
    if saved["json"] is not None:
        return _with_options(core, options)
    settings = {**saved["settings"], **options}
    if any(name in options for name in _NORMALIZER_OPTIONS):
        settings["normalize"] = True
    return core_from_state({**state, "settings": settings})


def load(p: Path, options: dict[str, Any]) -> Union[_core.Tokenizer, Path]:
    """What :meth:`wpiece.Tokenizer.from_file` finds at ``p``: the tokenizer
    a tokenizer.json or a settings file holds (``options`` over it), or the
    vocab.txt to build one from."""
    if p.name == SETTINGS_FILE and not p.is_dir():
        return load_settings_file(p, options)
    if p.is_dir() and not (p / "tokenizer.json").exists():
        # A folder save of what tokenizer.json cannot express; gone
        # meanwhile (a save replaced the set), the folder is looked at again.
        try:
            return load_settings_file(p / SETTINGS_FILE, options)
        except FileNotFoundError:
            pass
    if p.is_dir():
        found = [p / n for n in ("tokenizer.json", "vocab.txt") if (p / n).exists()]
        if not found:
            raise FileNotFoundError(f"no tokenizer.json or vocab.txt in {p}")
        p = found[0]
    if p.suffix.lower() != ".json":
        return p
    return _with_options(_core.Tokenizer.from_json(_core.read_text(p)), options)


def _with_options(core: _core.Tokenizer, options: dict[str, Any]) -> _core.Tokenizer:
    """``core`` with ``from_file``'s options over its own (a tokenizer.json's)."""
    if not options:
        return core
    return core.with_options(**options, set_strip_accents="strip_accents" in options)


def core_from_state(state: dict[str, Any]) -> _core.Tokenizer:
    """The tokenizer :func:`state` describes."""
    if state["json"] is not None:
        core = _core.Tokenizer.from_json(state["json"])
        unknown = state["settings"]["unknown"]
        if core.settings()["unknown"] != unknown:
            core = core.with_options(unknown=unknown, set_strip_accents=False)
    else:
        s = dict(state["settings"])
        s.pop("pipeline", None)  # only BERT pipelines lack a tokenizer.json form
        normalize = s.pop("normalize")
        core = _core.Tokenizer(state["vocab"], normalize=normalize, **s)
        core.add_tokens(state.get("added_tokens", []))
    core.decoder_cleanup = state["cleanup"]
    core.encode_special_tokens = state.get("encode_special_tokens", False)
    core.set_truncation(_truncation_spec(state["truncation"]))
    core.set_padding(_padding_spec(state["padding"]))
    return core
