"""`AddedToken`: a string matched whole in a text before the model sees it,
with HF's flags (``tokenizers.AddedToken``).

>>> import wpiece
>>> tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
>>> tok.add_tokens([wpiece.AddedToken("<ent>", lstrip=True)])
1
>>> tok.encode("an <ent>!").tokens
['[CLS]', 'an', ' <ent>', '!', '[SEP]']
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Union

from ._args import _check_str, _iterate

if TYPE_CHECKING:
    from . import _core

__all__ = ["AddedToken"]


@dataclass(frozen=True)
class AddedToken:
    """A token matched whole in a text, as HF's ``AddedToken``.

    ``single_word``: matched only where no word char touches it. ``lstrip`` /
    ``rstrip``: its match takes the whitespace on its left / right.
    ``normalized``: matched by its normalized form in normalized text (else in
    raw text); None means HF's default, ``not special``. ``special``: skipped
    by ``decode(skip_special_tokens=True)``; :meth:`Tokenizer.add_special_tokens`
    sets it.

    >>> AddedToken("<mask>", lstrip=True).normalized is None
    True
    """

    content: str
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: Optional[bool] = None
    special: bool = False

    def __post_init__(self) -> None:
        _check_str(self.content, "content")
        for name in ("single_word", "lstrip", "rstrip", "special"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"AddedToken.{name} must be a bool")
        if self.normalized is not None and not isinstance(self.normalized, bool):
            raise TypeError("AddedToken.normalized must be a bool or None")


TokenLike = Union[str, AddedToken]


def _spec(token: TokenLike, special: bool) -> tuple[str, bool, bool, bool, bool, bool]:
    """The core's form of ``token``; ``special`` is what
    ``add_special_tokens`` (True) or ``add_tokens`` (False) makes it."""
    if isinstance(token, str):
        return (token, False, False, False, not special, special)
    if not isinstance(token, AddedToken):
        raise TypeError(
            f"added tokens must be str or wpiece.AddedToken, not {type(token).__name__}"
        )
    special = special or token.special
    normalized = token.normalized if token.normalized is not None else not special
    return (token.content, token.single_word, token.lstrip, token.rstrip, normalized, special)


def _specs(
    tokens: Iterable[TokenLike], special: bool
) -> list[tuple[str, bool, bool, bool, bool, bool]]:
    """The core's form of each token of ``add_tokens`` / ``add_special_tokens``."""
    what = "a list of str or AddedToken"
    if isinstance(tokens, (str, AddedToken)):
        raise TypeError(f"tokens must be {what}, not one token")
    specs = []
    for k, token in enumerate(_iterate(tokens, "tokens", what)):
        if not isinstance(token, (str, AddedToken)):
            raise TypeError(
                f"item {k} of tokens is {type(token).__name__}, not str or wpiece.AddedToken"
            )
        specs.append(_spec(token, special))
    return specs


def _from_spec(spec: tuple[str, bool, bool, bool, bool, bool]) -> AddedToken:
    content, single_word, lstrip, rstrip, normalized, special = spec
    return AddedToken(content, single_word, lstrip, rstrip, normalized, special)


def _warn_shared_patterns(core: _core.Tokenizer, known: list[tuple[str, list[int]]]) -> None:
    """Warns of added tokens that match the same text (other than those in
    ``known``): HF ``tokenizers`` then gives the id of any one of them,
    changing from process to process, where wpiece gives the first's."""
    shared = [s for s in core.shared_added_patterns() if s not in known]
    content = dict((id, spec[0]) for id, spec in core.added_tokens()) if shared else {}
    for pattern, ids in shared:
        names = ", ".join(repr(content[i]) for i in ids)
        warnings.warn(
            f"added tokens {names} match the same text {pattern!r}: HF tokenizers encodes it "
            f"as any one of ids {ids}, changing from one process to the next; wpiece always "
            f"as {ids[0]}. Add one of them only for ids HF reproduces.",
            UserWarning,
            stacklevel=4,
        )
