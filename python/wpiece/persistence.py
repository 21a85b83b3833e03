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

import hashlib
import json
import os
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional, Union

from . import _core
from ._args import _padding_spec, _truncation_spec
from .training_record import TrainingRecord
from .transformers_bridge import _SETTINGS_KEY, config_of

__all__ = ["core_from_state", "load", "save", "state"]

# What a folder save writes for a tokenizer tokenizer.json cannot express
# (per-character unknowns, an end-of-word suffix): the whole tokenizer, its
# settings and vocabulary (the vocab.txt beside it alone would load with
# BERT's defaults).
SETTINGS_FILE = "wpiece_tokenizer.json"
_SETTINGS_FORMAT = "wpiece tokenizer settings"
# transformers' config, written beside tokenizer.json (transformers_bridge.config_of).
CONFIG_FILE = "tokenizer_config.json"
# Where transformers keeps a chat template beside the config (read over the
# config's own "chat_template"), and its named others.
CHAT_TEMPLATE_FILE = "chat_template.jinja"
CHAT_TEMPLATE_DIR = "additional_chat_templates"
# Whether decoding cleans up spaces, in a settings file (transformers' key).
CLEAN_UP_KEY = "clean_up_tokenization_spaces"
# What a tokenizer from transformers carries (sides, pad token, chat
# template...), in a settings file, which has no config to hold it.
CARRIED_KEY = "transformers_settings"
# The digest of the tokenizer.json a folder save's config was written with
# (in its wpiece_settings): the two are renamed one after the other, and a
# reader pairs them only if it matches.
DIGEST_KEY = "tokenizer_json_sha256"
# A config newer than its tokenizer.json and younger than this is a save
# between its two renames: a reader waits for the tokenizer.json that long.
_PAIRING_SECONDS = 1.0
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


def _json_expressible(core: _core.Tokenizer) -> bool:
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


def save_tokenizer(tok: Any, p: Path, extra: Sequence[tuple[str, bytes]] = ()) -> None:
    """Saves the :class:`wpiece.Tokenizer` ``tok`` (see its ``save``) with
    what it holds besides its core: its training record, its config for
    transformers, and the settings it carries from transformers."""
    config, clean_up = config_of(tok), tok.clean_up_tokenization_spaces
    carried = tok._transformers_settings
    save(tok._core, tok.training_record, p, extra, config, clean_up, carried)


def save(
    core: _core.Tokenizer,
    record: Optional[TrainingRecord],
    p: Path,
    extra: Sequence[tuple[str, bytes]] = (),
    config: Optional[Callable[[str], dict[str, Any]]] = None,
    clean_up: bool = False,
    carried: Optional[dict[str, Any]] = None,
) -> None:
    """See :meth:`wpiece.Tokenizer.save`. ``extra``: more files of a folder
    save's set (a training report's), as (name, contents); ``config``: the
    ``tokenizer_config.json`` a folder holds beside ``tokenizer.json``
    (transformers' settings), made from its text only if written. A settings
    file, which has no config, keeps ``clean_up`` (whether decoding cleans up
    spaces) and ``carried`` (the call settings and chat template the tokenizer
    carries from transformers, as a pickle keeps them)."""
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
        stale_too: list[str] = []
        try:
            files.append(("vocab.txt", core.vocab_txt().encode()))
        except ValueError:
            pass  # a token no line can hold: the other file holds the vocab
        if record is not None:
            text = json.dumps(record.to_dict(), ensure_ascii=False)
            files.append(("training_record.json", text.encode()))
        files.extend(extra)
        # Last: readers look for it first, so they see the old set until now.
        if _json_expressible(core):
            tokenizer_json = core.to_json()
            if config is not None:
                own = config(tokenizer_json)
                made = {**_kept_from_config(p / CONFIG_FILE), **own}
                made[_SETTINGS_KEY] = {**made[_SETTINGS_KEY], DIGEST_KEY: digest(tokenizer_json)}
                text = json.dumps(made, ensure_ascii=False, indent=2)
                files.append((CONFIG_FILE, text.encode()))
                # A chat template the tokenizer carries replaces the folder's
                # chat_template.jinja, which AutoTokenizer reads over the
                # config (one it does not carry, the model's, stays).
                # Named ones go in the config only: no other set's
                # template file is left to be read over it.
                template = own.get("chat_template")
                if template is not None:
                    stale_too.extend(_named_template_files(p))
                    if isinstance(template, str):
                        files.append((CHAT_TEMPLATE_FILE, template.encode()))
                    else:
                        stale_too.append(CHAT_TEMPLATE_FILE)
            files.append(("tokenizer.json", tokenizer_json.encode()))
        else:
            # Whole, the vocabulary included: read once, it is one set.
            settings = {"format": _SETTINGS_FORMAT, "version": 1, **state(core)}
            settings[CLEAN_UP_KEY] = clean_up
            settings[CARRIED_KEY] = carried or {}
            text = json.dumps(settings, ensure_ascii=False, indent=1)
            files.append((SETTINGS_FILE, text.encode()))
        written = {name for name, _ in files}
        stale = [n for n in (*_FOLDER_FILES, *stale_too) if n not in written]
        _core.write_set_atomic(p, files, stale)
        return
    if p.suffix.lower() == ".json":
        _core.write_atomic(p, core.to_json().encode())
    else:
        _check_vocab_txt_holds_all(core)
        _core.write_atomic(p, core.vocab_txt().encode())


def digest(tokenizer_json: str) -> str:
    """What a config says of the tokenizer.json it goes with."""
    return hashlib.sha256(tokenizer_json.encode()).hexdigest()


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON file holding an object (a config), or a ``ValueError`` naming it."""
    try:
        value = json.loads(_core.read_text(path))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: invalid JSON ({e})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{path}: not a JSON object")
    return value


def _stamp(path: Path) -> Optional[tuple[int, int]]:
    """Which file ``path`` is now, and when it was written (None: none)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns


def _read_paired(path: Path) -> tuple[str, dict[str, Any]]:
    """A folder's tokenizer.json text and the config that goes with it (``{}``
    if there is none), both read again if either file was replaced while
    they were read. A config a folder save wrote names its tokenizer.json's
    digest. When they differ and the config is the newer file (a save
    renamed it and not yet tokenizer.json), both are read again while the
    config is new, and an older one (a save cut off between the two renames)
    is taken with a warning; a tokenizer.json newer than its config (edited,
    or saved again by transformers) is taken with it."""
    config_path = path.parent / CONFIG_FILE
    deadline = time.monotonic() + _PAIRING_SECONDS
    while True:
        before = (_stamp(path), _stamp(config_path))
        text = _core.read_text(path)  # gone: FileNotFoundError, as a file read gives
        try:
            config = read_json_object(config_path) if before[1] is not None else None
        except FileNotFoundError:
            config = None  # removed meanwhile: the stamps differ
        stamps = (_stamp(path), _stamp(config_path))
        settled = stamps == before or time.monotonic() > deadline
        if not settled:
            time.sleep(0.002)
            continue
        if config is None or stamps[0] is None or stamps[1] is None:
            return text, config or {}
        said = config.get(_SETTINGS_KEY)
        wanted = said.get(DIGEST_KEY) if isinstance(said, dict) else None
        (_, tokenizer_written), (_, written) = stamps[0], stamps[1]
        if wanted is None or wanted == digest(text) or tokenizer_written >= written:
            return text, config
        if time.time_ns() - written > _PAIRING_SECONDS * 1e9 or time.monotonic() > deadline:
            warnings.warn(
                f"{config_path} was saved with another tokenizer.json than {path}, which "
                "is older (a save cut off between the two?): its settings are taken as "
                "they are",
                UserWarning,
                stacklevel=4,
            )
            return text, config
        time.sleep(0.002)


def _kept_from_config(path: Path) -> dict[str, Any]:
    """What a new config keeps of the folder's old one: its chat template,
    the model's (a BERT-family checkpoint rarely has one), not the old
    tokenizer's. An unreadable old config, or one whose template is no
    template, keeps nothing."""
    from .transformers_bridge import checked_chat_template

    try:
        template = checked_chat_template(read_json_object(path).get("chat_template"), str(path))
    except (OSError, ValueError):  # none, or unreadable
        return {}
    return {} if template is None else {"chat_template": template}


def _named_template_files(folder: Path) -> list[str]:
    """The named chat templates of ``folder``'s set (``additional_chat_templates``)."""
    named = folder / CHAT_TEMPLATE_DIR
    if not named.is_dir():
        return []
    return [f"{CHAT_TEMPLATE_DIR}/{p.name}" for p in sorted(named.glob("*.jinja")) if p.is_file()]


def _json_form(core: _core.Tokenizer) -> Optional[str]:
    """The tokenizer.json of the tokenizer, or, when that format cannot
    express it, of its pipeline: a tokenizer.json's own pipeline (which only
    that format holds) with per-character unknowns is written with
    whole-word unknowns, and its settings say the rest. None for BERT
    options, which the settings hold."""
    if _json_expressible(core):
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


def load(
    p: Path, options: dict[str, Any]
) -> tuple[Union[_core.Tokenizer, Path], Optional[dict[str, Any]]]:
    """What :meth:`wpiece.Tokenizer.from_file` finds at ``p``: the tokenizer
    a tokenizer.json or a settings file holds (``options`` over it), or the
    vocab.txt to build one from; and for a folder's tokenizer.json, the
    config read with it (see :func:`_read_paired`)."""
    if p.name == SETTINGS_FILE and not p.is_dir():
        return load_settings_file(p, options), None
    if p.is_dir() and not (p / "tokenizer.json").exists():
        # A folder save of what tokenizer.json cannot express; gone
        # meanwhile (a save replaced the set), the folder is looked at again.
        try:
            return load_settings_file(p / SETTINGS_FILE, options), None
        except FileNotFoundError:
            pass
    config, in_folder = None, p.is_dir()
    if in_folder:
        found = [p / n for n in ("tokenizer.json", "vocab.txt") if (p / n).exists()]
        if not found:
            raise FileNotFoundError(f"no tokenizer.json or vocab.txt in {p}")
        p = found[0]
    if p.suffix.lower() != ".json":
        return p, None
    text, config = _read_paired(p) if in_folder else (_core.read_text(p), None)
    return _with_options(_core.Tokenizer.from_json(text), options), config


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
