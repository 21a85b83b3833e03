"""The bridge to HF: a wpiece `Tokenizer` as a transformers fast tokenizer,
and the tokenizer.json of what a user holds (a `tokenizers.Tokenizer` or a
transformers fast tokenizer).

>>> import wpiece
>>> hf = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path()).to_transformers()
>>> hf("Hello, world!")["input_ids"]
[101, 7592, 1010, 2088, 999, 102]
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Optional

__all__ = ["backend_json", "config_of", "init_kwargs", "per_call", "to_transformers"]

# The config key that carries a wpiece tokenizer's own truncation and padding
# through save_pretrained, so a round trip back to wpiece restores them.
_SETTINGS_KEY = "wpiece_settings"

# What transformers keeps of a tokenizer in its config (or on the object)
# and applies per call, which tokenizer.json does not hold: kept from a
# folder's config or a transformers tokenizer, given back by to_transformers.
CALL_SETTINGS = ("model_max_length", "padding_side", "truncation_side", "model_input_names")

# The strings each role goes by in WordPiece families (BERT's, then MPNet's
# and Funnel's); a role is declared only if its token is special here.
_ROLE_NAMES = {
    "cls_token": ("[CLS]", "<s>", "<cls>"),
    "sep_token": ("[SEP]", "</s>", "<sep>"),
    "mask_token": ("[MASK]", "<mask>"),
    "bos_token": ("<s>",),
    "eos_token": ("</s>",),
}


def backend_json(tokenizer: Any) -> tuple[str, Optional[dict[str, Any]]]:
    """The tokenizer.json text of ``tokenizer``, and, for a transformers
    tokenizer (whose backend's truncation and padding are what its last call
    left, not its own), the settings :func:`to_transformers` kept in its
    config (``{}`` if none: a transformers tokenizer truncates per call)."""
    backend = getattr(tokenizer, "backend_tokenizer", tokenizer)
    to_str = getattr(backend, "to_str", None)
    if to_str is None or not callable(to_str):
        raise TypeError(
            "tokenizer must be a tokenizers.Tokenizer or a transformers fast tokenizer, got "
            f"{type(tokenizer).__name__}"
        )
    if backend is tokenizer:
        return to_str(), None
    kept = getattr(tokenizer, "init_kwargs", {}).get(_SETTINGS_KEY)
    if not isinstance(kept, dict):
        return to_str(), {}
    padding = kept.get("padding")
    if isinstance(padding, dict) and padding.get("pad_token") is None:
        # Padding with the tokenizer's pad token, whatever it is now called.
        if tokenizer.pad_token is None:
            raise ValueError(
                f"{_SETTINGS_KEY} pads with the tokenizer's pad token, and it has none: "
                "set pad_token"
            )
        padding = {**padding, "pad_token": str(tokenizer.pad_token)}
    return to_str(), {**kept, "padding": padding}


def core_from_hf(tokenizer: Any) -> Any:
    """The core tokenizer of ``Tokenizer.from_hf(tokenizer)``: its
    tokenizer.json, whether it encodes special tokens typed in a text as
    text, and the truncation and padding that are its own."""
    from . import _core
    from ._args import _padding_spec, _truncation_spec

    json_text, kept = backend_json(tokenizer)
    core = _core.Tokenizer.from_json(json_text)
    core.encode_special_tokens = splits_special_tokens(tokenizer)
    if kept is not None:
        # transformers sets truncation and padding on its backend per
        # call: what a previous call left there is not the tokenizer's.
        core.set_truncation(_truncation_spec(kept.get("truncation")))
        core.set_padding(_padding_spec(kept.get("padding")))
    return core


def call_settings_of(tokenizer: Any) -> dict[str, Any]:
    """The :data:`CALL_SETTINGS` and chat template a transformers tokenizer
    has (none for a ``tokenizers.Tokenizer``, whose truncation and padding
    are its own)."""
    if not _is_transformers(tokenizer):
        return {}
    keys = (*CALL_SETTINGS, "pad_token", "chat_template")
    found = {key: getattr(tokenizer, key, None) for key in keys}
    where = f"the transformers tokenizer ({type(tokenizer).__name__})"
    for side in ("padding_side", "truncation_side"):
        checked_side(found[side], side, where)
    found["chat_template"] = checked_chat_template(found["chat_template"], where)
    if not isinstance(found["pad_token"], str):
        found["pad_token"] = None
    return {key: _copied(value) for key, value in found.items() if value is not None}


def checked_chat_template(value: Any, where: str) -> Any:
    """A chat template as transformers holds it (None, a string, or a dict
    of strings by name), from what ``where`` gives: that, or a list of
    ``{"name", "template"}`` objects (made a dict by name, as transformers
    makes it); anything else is a ``ValueError`` naming ``where``."""
    if isinstance(value, list) and all(
        isinstance(t, dict)
        and isinstance(t.get("name"), str)
        and isinstance(t.get("template"), str)
        for t in value
    ):
        return {t["name"]: t["template"] for t in value}
    strings = isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(t, str) for k, t in value.items()
    )
    if value is None or isinstance(value, str) or strings:
        return value
    raise ValueError(
        f"{where}: chat_template must be a string, a list of {{'name', 'template'}} "
        f"objects or an object of strings, got {value!r:.80}"
    )


def checked_side(value: Any, key: str, where: str) -> Any:
    """``padding_side`` or ``truncation_side`` (``key``) as transformers
    takes it, 'right' or 'left' (None: not given); else a ``ValueError``."""
    if value not in (None, "right", "left"):
        raise ValueError(f"{where}: {key} must be 'right' or 'left', got {value!r:.80}")
    return value


# Of those and the pad token, what a call that pads or truncates applies
# (see per_call).
_PER_CALL = ("padding_side", "truncation_side", "model_max_length", "pad_token")


def per_call(
    tok: Any, padding: Any, truncation: Any, max_length: Optional[int], multiple: Optional[int]
) -> tuple[Optional[dict[str, Any]], Any, Any, Optional[int]]:
    """What the transformers tokenizer or folder the tokenizer ``tok`` came
    from (its call settings) applies to a call that asks for padding or
    truncation: its sides, its pad token, and its ``model_max_length`` for
    a call that gives no ``max_length`` (transformers' "no limit",
    ``int(1e30)``, is none); None if it said none of them. With the call's
    ``padding``, ``truncation`` and ``pad_to_multiple_of`` (``multiple``),
    as transformers takes them: a ``max_length`` alone (no padding,
    truncation not said) truncates; asked to pad to or cut at a length that
    neither the call, ``model_max_length`` nor the tokenizer gives, it warns
    and does not; a multiple is ignored when nothing pads, and refused when
    it does not divide the length a call both pads and cuts at."""
    kept, core = tok._transformers_settings, tok._core
    if not kept:
        return None, padding, truncation, multiple
    if max_length is not None and padding is False and truncation is None:
        truncation = True
    length = kept.get("model_max_length")
    usable = type(length) is int and 0 < length <= 0xFFFF_FFFF
    cut_at = max_length if max_length is not None else length if usable else None
    pads = padding is True or padding in ("longest", "max_length")
    if truncation is True and pads and multiple and cut_at and cut_at % multiple:
        raise ValueError(
            f"truncation and padding are both asked, but the truncation length ({cut_at}) is "
            f"not a multiple of pad_to_multiple_of ({multiple}), which transformers refuses"
        )
    # transformers' "no limit" (a config without one gets it too; one
    # wpiece saved names a length only when the tokenizer truncates).
    if max_length is None and not usable and "model_max_length" in kept:
        if truncation is True and core.truncation is None:
            warnings.warn(_NO_LENGTH.format("truncate"), UserWarning, stacklevel=3)
            truncation = None
        # Padding to max_length takes the truncation's length too.
        if padding == "max_length" and core.padding is None and core.truncation is None:
            warnings.warn(_NO_LENGTH.format("pad"), UserWarning, stacklevel=3)
            padding = False
    if padding is False and core.padding is None:
        multiple = None
    if not any(key in kept for key in _PER_CALL):
        return None, padding, truncation, multiple
    pad = kept.get("pad_token")
    settings = {
        "padding_side": kept.get("padding_side"),
        "truncation_side": kept.get("truncation_side"),
        "model_max_length": length if usable else None,
        "pad_id": core.token_to_id(pad) if isinstance(pad, str) else None,
    }
    return settings, padding, truncation, multiple


_NO_LENGTH = (
    "asked to {} to max_length, but neither the call, the tokenizer nor its model_max_length "
    "gives one: not done (as transformers does)"
)


def _copied(value: Any) -> Any:
    if isinstance(value, dict):
        return dict(value)
    return list(value) if isinstance(value, (list, tuple)) else value


def _is_transformers(tokenizer: Any) -> bool:
    """A transformers tokenizer (over a backend), not a ``tokenizers.Tokenizer``."""
    return getattr(tokenizer, "backend_tokenizer", tokenizer) is not tokenizer


def cleans_up_spaces(tokenizer: Any) -> bool:
    """Whether a transformers tokenizer's ``decode`` ends with its clean-up
    of spaces (``clean_up_tokenization_spaces``, by truth, as transformers
    reads it); a ``tokenizers.Tokenizer`` has none."""
    return _is_transformers(tokenizer) and bool(
        getattr(tokenizer, "clean_up_tokenization_spaces", False)
    )


def splits_special_tokens(tokenizer: Any) -> bool:
    """Whether ``tokenizer`` encodes special tokens typed in a text as text:
    a ``tokenizers.Tokenizer``'s ``encode_special_tokens``, a transformers
    tokenizer's own ``split_special_tokens`` (its backend's flag is what its
    last call left). tokenizer.json does not hold it."""
    flag = "split_special_tokens" if _is_transformers(tokenizer) else "encode_special_tokens"
    return bool(getattr(tokenizer, flag, False))


def _framing_roles(post_processor: Optional[dict[str, Any]]) -> dict[str, str]:
    """``cls_token`` and ``sep_token`` as the post-processor frames a single
    input: the special token before the sequence, and the last one after it
    (Funnel's template frames with ``<cls>`` and ``<sep>`` though its
    vocabulary also has ``<s>`` and ``</s>``)."""
    pp = post_processor or {}
    if pp.get("type") in ("BertProcessing", "RobertaProcessing"):
        return {"cls_token": pp["cls"][0], "sep_token": pp["sep"][0]}
    if pp.get("type") != "TemplateProcessing":
        return {}
    single = pp.get("single", [])
    at = next((k for k, piece in enumerate(single) if "Sequence" in piece), None)
    if at is None:
        return {}

    def token(piece: dict[str, Any]) -> Optional[str]:
        tokens = pp.get("special_tokens", {}).get(piece["SpecialToken"]["id"], {}).get("tokens")
        return tokens[0] if isinstance(tokens, list) and len(tokens) == 1 else None

    before = [token(p) for p in single[:at] if "SpecialToken" in p]
    after = [token(p) for p in single[at + 1 :] if "SpecialToken" in p]
    roles = {"cls_token": before[0] if before else None, "sep_token": after[-1] if after else None}
    return {role: t for role, t in roles.items() if t is not None}


def to_transformers(tok: Any, options: dict[str, Any]) -> Any:
    """See :meth:`wpiece.Tokenizer.to_transformers` (``tok`` is a
    ``wpiece.Tokenizer``; not imported here, which imports this module)."""
    from tokenizers import Tokenizer as HFTokenizer
    from transformers import PreTrainedTokenizerFast

    if "tokenizer_object" in options or "tokenizer_file" in options:
        raise TypeError("to_transformers() makes the backend itself: no tokenizer_object")
    text = tok.to_json()
    backend = HFTokenizer.from_str(text)
    # The caller's own (model_max_length, model_input_names...) over these.
    made = init_kwargs(tok, text)
    return PreTrainedTokenizerFast(tokenizer_object=backend, **{**made, **options})


def config_of(tok: Any) -> Callable[[str], dict[str, Any]]:
    """The ``tokenizer_config.json`` a folder save writes beside
    ``tokenizer.json``, from that file's text (made only if written): what
    :func:`to_transformers` gives its tokenizer, so that
    ``AutoTokenizer.from_pretrained`` on the folder loads the same tokenizer
    (special tokens, sides, ``model_max_length``, inputs, clean-up of
    spaces) and :meth:`wpiece.Tokenizer.from_file` reads them back. The
    inputs of a class carried from a folder (DistilBERT's) are looked up in
    transformers: without it installed, the config names none, and
    transformers' default inputs apply."""
    return lambda text: {"tokenizer_class": "PreTrainedTokenizerFast", **init_kwargs(tok, text)}


def init_kwargs(tok: Any, text: str) -> dict[str, Any]:
    """The keyword arguments :func:`to_transformers` gives
    ``PreTrainedTokenizerFast`` besides the backend (``text``, the
    tokenizer.json of ``tok``): plain JSON values, as a config holds them."""
    import json

    specials = tok._core.special_tokens_in_order()
    framing = _framing_roles(json.loads(text).get("post_processor"))

    def first_special(names: tuple[str, ...]) -> Any:
        return next((n for n in names if n in specials), None)

    def role_of(role: str, names: tuple[str, ...]) -> Any:
        framed = framing.get(role)
        return framed if framed in specials else first_special(names)

    pad = (tok.padding or {}).get("pad_token")
    roles = {
        "unk_token": first_special((tok.settings["unk_token"],)),
        "pad_token": first_special((pad,) if pad else ("[PAD]", "<pad>")),
        **{role: role_of(role, names) for role, names in _ROLE_NAMES.items()},
    }
    # Only tokens this tokenizer treats as special: transformers would
    # otherwise make them special, and split them out of raw text.
    named = {role: token for role, token in roles.items() if token is not None}
    others = [t for t in specials if t not in named.values()]
    made: dict[str, Any] = {"model_input_names": ["input_ids", "token_type_ids", "attention_mask"]}
    if others:
        made["additional_special_tokens"] = others
    truncation, padding = tok.truncation, tok.padding
    if truncation is not None:
        made["model_max_length"] = truncation["max_length"]
        made["truncation_side"] = truncation["direction"]
    if padding is not None:
        made["padding_side"] = padding["direction"]
    if padding is not None and padding["pad_id"] == tok.token_to_id(padding["pad_token"]):
        # Padding with the pad token and its id, as from_hf finds them again
        # in whatever tokenizer carries these settings: train_new_from_iterator
        # copies the config into a new vocabulary, maybe renaming the token.
        own = named.get("pad_token") == padding["pad_token"]
        padding = {**padding, "pad_id": None, "pad_token": None if own else padding["pad_token"]}
    made[_SETTINGS_KEY] = {"truncation": truncation, "padding": padding}
    # What the folder or transformers tokenizer this one came from said, as
    # transformers would apply it (a folder's model_max_length over the
    # truncation its tokenizer.json holds).
    carried = {key: _copied(v) for key, v in tok._transformers_settings.items()}
    kind = carried.pop("tokenizer_class", None)
    if isinstance(kind, str) and "model_input_names" not in carried:
        # A folder's class gives its inputs (DistilBERT's take no token_type_ids).
        names = _class_input_names(kind)
        if names is not None:
            carried["model_input_names"] = names
    made.update(carried)
    if tok.encode_special_tokens:
        made["split_special_tokens"] = True
    made["clean_up_tokenization_spaces"] = tok.clean_up_tokenization_spaces
    return {**named, **made}


def _class_input_names(kind: str) -> Optional[list[str]]:
    """The ``model_input_names`` of the transformers class named ``kind``;
    None if transformers (or the class) is not there."""
    try:
        import transformers

        # A class whose backend library is missing is a placeholder that
        # raises ImportError (BertGenerationTokenizer without sentencepiece).
        names = getattr(getattr(transformers, kind, None), "model_input_names", None)
    except Exception:
        return None
    return list(names) if isinstance(names, list) else None
