"""wpiece: WordPiece tokenization with a Rust core.

Encode exactly like HF ``tokenizers`` on any BERT-style vocabulary, and train
vocabularies with the real WordPiece score.

>>> import wpiece
>>> tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
>>> tok.encode("WordPiece!").tokens
['[CLS]', 'word', '##piece', '!', '[SEP]']
"""

from __future__ import annotations

from pathlib import Path

from ._core import UnsupportedComponentError
from .added_tokens import AddedToken
from .counts import WordCounts, count_words
from .tokenizer import BERT_SPECIAL_TOKENS, Encoding, Tokenizer
from .training import (
    Merge,
    MergeList,
    TrainingOptions,
    TrainingRecord,
    train,
    train_from_counts,
    train_from_iterator,
)

__all__ = [
    "AddedToken",
    "BERT_SPECIAL_TOKENS",
    "Encoding",
    "Merge",
    "MergeList",
    "Tokenizer",
    "TrainingOptions",
    "TrainingRecord",
    "UnsupportedComponentError",
    "WordCounts",
    "count_words",
    "sample_text_path",
    "sample_vocab_path",
    "train",
    "train_from_counts",
    "train_from_iterator",
]

__version__ = "0.1.0"

_DATA = Path(__file__).parent / "data"


def sample_vocab_path() -> Path:
    """Path of the bundled bert-base-uncased ``vocab.txt`` (Apache-2.0)."""
    return _DATA / "bert-base-uncased-vocab.txt"


def sample_text_path() -> Path:
    """Path of the bundled sample corpus (400 verses of the King James Bible)."""
    return _DATA / "sample.txt"
