"""Saving a tokenizer (files and folders, each written atomically) and its
pickled state.

>>> import os, tempfile, wpiece
>>> tok = wpiece.Tokenizer(["[UNK]", "a", "##b"])
>>> d = tempfile.mkdtemp()
>>> tok.save(d)
>>> sorted(os.listdir(d))
['tokenizer.json', 'vocab.txt']
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from . import _core
from ._args import _padding_spec, _truncation_spec
from .training_record import TrainingRecord

__all__ = ["core_from_state", "save", "state"]

# The files a folder save writes; any of them the new set lacks is removed.
_FOLDER_FILES = ("vocab.txt", "training_record.json", "tokenizer.json")


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


def save(core: _core.Tokenizer, record: Optional[TrainingRecord], p: Path) -> None:
    """See :meth:`wpiece.Tokenizer.save`."""
    if p.is_dir() or not p.suffix:
        if not _json_expressible(core):
            _check_vocab_txt_holds_all(core)
        files = [("vocab.txt", core.vocab_txt().encode())]
        if record is not None:
            text = json.dumps(record.to_dict(), ensure_ascii=False)
            files.append(("training_record.json", text.encode()))
        if _json_expressible(core):
            # Last: readers look for it first, so they see the old set until now.
            files.append(("tokenizer.json", core.to_json().encode()))
        written = {name for name, _ in files}
        stale = [n for n in _FOLDER_FILES if n not in written]
        _core.write_set_atomic(p, files, stale)
        return
    if p.suffix == ".json":
        _core.write_atomic(p, core.to_json().encode())
    else:
        _check_vocab_txt_holds_all(core)
        _core.write_atomic(p, core.vocab_txt().encode())


def state(core: _core.Tokenizer) -> dict[str, Any]:
    """A tokenizer as plain values (its tokenizer.json when it has one)."""
    return {
        "vocab": core.get_vocab(),
        "json": core.to_json() if _json_expressible(core) else None,
        "settings": core.settings(),
        "truncation": core.truncation,
        "padding": core.padding,
        "cleanup": core.decoder_cleanup,
        "added_tokens": [spec for _, spec in core.added_tokens()],
    }


def core_from_state(state: dict[str, Any]) -> _core.Tokenizer:
    """The tokenizer :func:`state` describes."""
    if state["json"] is not None:
        core = _core.Tokenizer.from_json(state["json"])
    else:
        s = dict(state["settings"])
        s.pop("pipeline", None)  # only BERT pipelines lack a tokenizer.json form
        normalize = s.pop("normalize")
        core = _core.Tokenizer(state["vocab"], normalize=normalize, **s)
        core.add_tokens(state.get("added_tokens", []))
    core.decoder_cleanup = state["cleanup"]
    core.set_truncation(_truncation_spec(state["truncation"]))
    core.set_padding(_padding_spec(state["padding"]))
    return core
