"""Ids back to text: :meth:`Decoding.decode`, :meth:`Decoding.decode_batch`
and the settings that shape the text, for :class:`wpiece.Tokenizer`.

The text is what HF's decoder gives (``tokenizers``' ``decode``); with
:attr:`Decoding.clean_up_tokenization_spaces` transformers' own clean-up of
spaces follows, as a transformers tokenizer's ``decode`` does when its
config says so.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import _core
from ._args import _flag, _id_lists, _ids

__all__ = ["Decoding", "clean_up_tokenization"]

# transformers' clean_up_tokenization, in its order (from its
# PreTrainedTokenizerBase.clean_up_tokenization, transformers 5.23). Not the
# core decoder's cleanup (src/decoder.rs, HF tokenizers'): that one applies
# its own list (with " do not") to each token; this one, to the whole text.
_CLEAN_UP = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)


def clean_up_tokenization(text: str) -> str:
    """transformers' clean-up of spaces a decoder leaves before punctuation
    and contractions.

    >>> clean_up_tokenization("don ' t stop , ok ? i ' m")
    "don't stop, ok? i'm"
    """
    for dirty, clean in _CLEAN_UP:
        text = text.replace(dirty, clean)
    return text


class Decoding:
    """Decoding, for :class:`wpiece.Tokenizer` (which holds ``_core``)."""

    _core: _core.Tokenizer
    _clean_up: bool = False

    def decode(self, ids: Iterable[int], skip_special_tokens: bool = True) -> str:
        """Text from ids, as HF's WordPiece decoder gives it. As in HF: ids
        that no token has are skipped, an id that is not an int (a float, a
        str) raises ``TypeError``, one outside 0..2^32-1 ``OverflowError``.

        >>> from wpiece import Tokenizer
        >>> tok = Tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "##s", "!"])
        >>> tok.decode([2, 4, 5, 6, 3])
        'hellos!'
        """
        text = self._core.decode(_ids(ids), _flag(skip_special_tokens, "skip_special_tokens"))
        return clean_up_tokenization(text) if self._clean_up else text

    def decode_batch(
        self, sequences: Iterable[Iterable[int]], skip_special_tokens: bool = True
    ) -> list[str]:
        """:meth:`decode` for each sequence."""
        skip = _flag(skip_special_tokens, "skip_special_tokens")
        texts = [self._core.decode(ids, skip) for ids in _id_lists(sequences)]
        return [clean_up_tokenization(t) for t in texts] if self._clean_up else texts

    @property
    def decoder_cleanup(self) -> bool:
        """Whether :meth:`decode` removes spaces before punctuation (HF's
        ``cleanup``): False without a decoder (a tokenizer.json whose decoder
        is null joins tokens with spaces), where setting it raises ValueError."""
        return self._core.decoder_cleanup

    @decoder_cleanup.setter
    def decoder_cleanup(self, value: bool) -> None:
        self._core.decoder_cleanup = _flag(value, "decoder_cleanup")

    @property
    def clean_up_tokenization_spaces(self) -> bool:
        """Whether :meth:`decode` ends with transformers' clean-up of spaces
        (:func:`clean_up_tokenization`), as a transformers tokenizer whose
        config sets ``clean_up_tokenization_spaces`` decodes. False by
        default; ``from_hf`` and a slow tokenizer's folder take it from the
        config, ``to_transformers`` passes it on, pickles keep it
        (tokenizer.json does not hold it).

        >>> from wpiece import Tokenizer
        >>> tok = Tokenizer(["[UNK]", "don", "'", "t"])
        >>> tok.decode([1, 2, 3])
        "don ' t"
        >>> tok.clean_up_tokenization_spaces = True
        >>> tok.decode([1, 2, 3])
        "don't"
        """
        return self._clean_up

    @clean_up_tokenization_spaces.setter
    def clean_up_tokenization_spaces(self, value: bool) -> None:
        self._clean_up = _flag(value, "clean_up_tokenization_spaces")
