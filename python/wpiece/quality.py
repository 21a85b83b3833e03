"""How a vocabulary encodes text: what users feel, measured by the real encoder."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class TextStats:
    """Counts over the words of a text, each word encoded as the tokenizer
    encodes it (normalized, pre-tokenized, longest-match-first).

    >>> s = TextStats(words=4, tokens=6, chars=20, whole_words=3, unknown_words=0)
    >>> s.tokens_per_word, s.chars_per_token, s.whole_word_rate
    (1.5, 3.3333333333333335, 0.75)
    """

    words: int
    tokens: int
    chars: int
    """Characters of the words, after normalization."""
    whole_words: int
    """Words encoded as one token (not the unknown token)."""
    unknown_words: int
    """Words with the unknown token among their pieces."""

    @property
    def tokens_per_word(self) -> float:
        """Lower is better: 1.0 means every word is one token."""
        return self.tokens / self.words if self.words else 0.0

    @property
    def chars_per_token(self) -> float:
        return self.chars / self.tokens if self.tokens else 0.0

    @property
    def whole_word_rate(self) -> float:
        """The share of words kept whole."""
        return self.whole_words / self.words if self.words else 0.0

    @property
    def unknown_rate(self) -> float:
        """The share of words that hold an unknown token."""
        return self.unknown_words / self.words if self.words else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The counts and the four rates."""
        return {
            **asdict(self),
            "tokens_per_word": self.tokens_per_word,
            "chars_per_token": self.chars_per_token,
            "whole_word_rate": self.whole_word_rate,
            "unknown_rate": self.unknown_rate,
        }
