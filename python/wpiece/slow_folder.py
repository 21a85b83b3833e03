"""A folder a transformers slow tokenizer saved: ``vocab.txt`` with
``tokenizer_config.json`` and no ``tokenizer.json`` (older checkpoints, and
every cased one among them). transformers builds its tokenizer from both:
``do_lower_case``, ``strip_accents``, ``tokenize_chinese_chars`` and
``unk_token`` set the BERT pipeline, ``added_tokens_decoder`` adds tokens.
Read here the same way; what the config holds that wpiece would read
otherwise than transformers is refused by name, never dropped.

>>> import json, os, tempfile
>>> d = tempfile.mkdtemp()
>>> with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
...     json.dump({"tokenizer_class": "BertTokenizer", "do_lower_case": False}, f)
>>> folder_config(Path(d)).options["lowercase"]
False
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _core

__all__ = ["FolderConfig", "folder_config"]

CONFIG_FILE = "tokenizer_config.json"

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
    """``from_file`` options, and added tokens in id order as
    ``(content, single_word, lstrip, rstrip, normalized, special)``."""

    options: dict[str, Any] = field(default_factory=dict)
    added: list[tuple[str, bool, bool, bool, bool, bool]] = field(default_factory=list)


def _refuse(folder: Path, what: str) -> _core.UnsupportedComponentError:
    return _core.UnsupportedComponentError(
        f"{folder / CONFIG_FILE}: {what}; load it with "
        "wpiece.Tokenizer.from_hf(transformers.AutoTokenizer.from_pretrained(folder))"
    )


def _token_text(value: Any) -> Any:
    """A special token as a config names it: a string, or an AddedToken's dict."""
    return value.get("content") if isinstance(value, dict) else value


def folder_config(folder: Path, given_folder: bool = True) -> FolderConfig:
    """What ``folder``'s tokenizer config says of the tokenizer its
    ``vocab.txt`` makes: nothing without a config, or when the vocab.txt
    itself was named (``given_folder`` False: that file alone is meant)."""
    if not given_folder:
        return FolderConfig()
    path = folder / CONFIG_FILE
    if (folder / "added_tokens.json").exists():
        raise _refuse(folder, "added_tokens.json beside it is not read")
    if not path.is_file():
        return FolderConfig()
    try:
        config = json.loads(_core.read_text(path))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: invalid JSON ({e})") from None
    if not isinstance(config, dict):
        raise ValueError(f"{path}: not a JSON object")
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
    unk = _token_text(config.get("unk_token", "[UNK]"))
    if not isinstance(unk, str) or not unk:
        raise ValueError(f"{path}: unk_token is not a token")
    options["unk_token"] = unk
    # The special tokens are the ones the config names, as in transformers
    # (with unk_token named otherwise, "[UNK]" is plain text).
    roles = [_FRAMING["pad_token"], unk, _FRAMING["cls_token"], _FRAMING["sep_token"]]
    options["special_tokens"] = list(dict.fromkeys([*roles, _FRAMING["mask_token"]]))
    added = []
    decoder = config.get("added_tokens_decoder") or {}
    if not isinstance(decoder, dict):
        raise ValueError(f"{path}: added_tokens_decoder is not an object")
    flags = ("single_word", "lstrip", "rstrip", "normalized", "special")
    try:
        entries = sorted(decoder.items(), key=lambda item: int(item[0]))
    except ValueError:
        raise ValueError(f"{path}: added_tokens_decoder keys are not ids") from None
    for key, t in entries:
        content = t.get("content") if isinstance(t, dict) else None
        if not isinstance(content, str):
            raise ValueError(f"{path}: added token {key} has no content")
        added.append((content, *(bool(t.get(f, False)) for f in flags)))
    return FolderConfig(options, added)  # type: ignore[arg-type]
