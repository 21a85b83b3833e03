"""The bridge to HF: a wpiece `Tokenizer` as a transformers fast tokenizer,
and the tokenizer.json of what a user holds (a `tokenizers.Tokenizer` or a
transformers fast tokenizer).

>>> import wpiece
>>> hf = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path()).to_transformers()
>>> hf("Hello, world!")["input_ids"]
[101, 7592, 1010, 2088, 999, 102]
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["backend_json", "to_transformers"]

# The config key that carries a wpiece tokenizer's own truncation and padding
# through save_pretrained, so a round trip back to wpiece restores them.
_SETTINGS_KEY = "wpiece_settings"

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
    return to_str(), dict(kept) if isinstance(kept, dict) else {}


def to_transformers(tok: Any) -> Any:
    """See :meth:`wpiece.Tokenizer.to_transformers` (``tok`` is a
    ``wpiece.Tokenizer``; not imported here, which imports this module)."""
    from tokenizers import Tokenizer as HFTokenizer
    from transformers import PreTrainedTokenizerFast

    backend = HFTokenizer.from_str(tok.to_json())
    specials = tok._core.special_tokens_in_order()

    def first_special(names: tuple[str, ...]) -> Any:
        return next((n for n in names if n in specials), None)

    pad = (tok.padding or {}).get("pad_token")
    roles = {
        "unk_token": first_special((tok.settings["unk_token"],)),
        "pad_token": first_special((pad,) if pad else ("[PAD]", "<pad>")),
        **{role: first_special(names) for role, names in _ROLE_NAMES.items()},
    }
    # Only tokens this tokenizer treats as special: transformers would
    # otherwise make them special, and split them out of raw text.
    named = {role: token for role, token in roles.items() if token is not None}
    others = [t for t in specials if t not in named.values()]
    options: dict[str, Any] = {}
    if others:
        options["additional_special_tokens"] = others
    truncation, padding = tok.truncation, tok.padding
    if truncation is not None:
        options["model_max_length"] = truncation["max_length"]
        options["truncation_side"] = truncation["direction"]
    if padding is not None:
        options["padding_side"] = padding["direction"]
    options[_SETTINGS_KEY] = {"truncation": truncation, "padding": padding}
    return PreTrainedTokenizerFast(
        tokenizer_object=backend,
        model_input_names=["input_ids", "token_type_ids", "attention_mask"],
        **named,
        **options,
    )
