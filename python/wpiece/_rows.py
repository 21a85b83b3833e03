"""The named rows that cross the boundary with the Rust extension: what
``wpiece._core`` takes and returns as dicts, typed for the checker."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, TypedDict

if TYPE_CHECKING:
    from ._core import MergeRows


class TruncationSpec(TypedDict):
    """Truncation of the encode calls."""

    max_length: int
    stride: int
    strategy: str
    direction: str


class PaddingSpec(TypedDict):
    """Padding of the encode calls; ``length`` None pads to the longest,
    ``pad_id`` None is the id of ``pad_token``."""

    length: Optional[int]
    pad_to_multiple_of: Optional[int]
    pad_id: Optional[int]
    pad_token: str
    pad_type_id: int
    direction: str


class BertOptions(TypedDict):
    """The settings of a BERT-like tokenizer that training builds."""

    unk_token: str
    continuing_subword_prefix: str
    max_input_chars_per_word: int
    unknown: str
    normalize: bool
    lowercase: bool
    strip_accents: Optional[bool]
    clean_text: bool
    handle_chinese_chars: bool
    pre_tokenizer: str
    special_tokens: list[str]
    end_of_word_suffix: str


class StatsRow(TypedDict):
    """Counts behind :class:`wpiece.TextStats`."""

    words: int
    tokens: int
    chars: int
    whole_words: int
    unknown_words: int


class MergeRow(TypedDict):
    """One merge of a training run."""

    left: str
    right: str
    merged: str
    pair_frequency: int
    left_frequency: int
    right_frequency: int
    tokens_after: int
    added: bool
    score: float
    gain: float


class TrainRow(TypedDict):
    """A training run's result (beside the tokenizer it trained)."""

    merges: MergeRows
    base_vocab_size: int
    initial_tokens: int
    total_words: int
    removed: list[tuple[str, int]]
    fitted_tokens: int
