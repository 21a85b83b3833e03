"""Type stubs of the Rust extension `wpiece._core`."""

from os import PathLike
from typing import Any, Callable, Literal, Optional, Union, final

import numpy as np
import numpy.typing as npt

from ._rows import BertOptions, MergeRow, PaddingSpec, StatsRow, TrainRow, TruncationSpec

__all__ = [
    "BERT_SPECIAL_TOKENS",
    "DocumentReader",
    "Encoding",
    "FileDocuments",
    "MergeRows",
    "Tokenizer",
    "UnsupportedComponentError",
    "WordCounter",
    "check_names",
    "encode_file_part",
    "read_text",
    "read_vocab_txt",
    "write_atomic",
    "write_set_atomic",
]

BERT_SPECIAL_TOKENS: tuple[str, ...]

# Defaults written `...` are string defaults the binding cannot show (they are
# `Cow` values in Rust); the Python layer documents them.

_Truncation = Optional[TruncationSpec]
_Padding = Optional[PaddingSpec]
_CallPadding = Union[bool, Literal["longest", "max_length"]]

class UnsupportedComponentError(ValueError): ...

@final
class Encoding:
    @property
    def ids(self) -> list[int]: ...
    @property
    def type_ids(self) -> list[int]: ...
    @property
    def tokens(self) -> list[str]: ...
    @property
    def offsets(self) -> list[tuple[int, int]]: ...
    @property
    def attention_mask(self) -> list[int]: ...
    @property
    def special_tokens_mask(self) -> list[int]: ...
    @property
    def word_ids(self) -> list[Optional[int]]: ...
    @property
    def words(self) -> list[Optional[int]]: ...
    @property
    def sequence_ids(self) -> list[Optional[int]]: ...
    @property
    def n_sequences(self) -> int: ...
    @property
    def overflowing(self) -> list[Encoding]: ...
    def char_to_token(
        self, char_pos: int, sequence_index: Optional[int] = None
    ) -> Optional[int]: ...
    def char_to_word(
        self, char_pos: int, sequence_index: Optional[int] = None
    ) -> Optional[int]: ...
    def token_to_chars(self, token_index: int) -> Optional[tuple[int, int]]: ...
    def token_to_word(self, token_index: int) -> Optional[int]: ...
    def token_to_sequence(self, token_index: int) -> Optional[int]: ...
    def word_to_tokens(
        self, word_index: int, sequence_index: Optional[int] = None
    ) -> Optional[tuple[int, int]]: ...
    def word_to_chars(
        self, word_index: int, sequence_index: Optional[int] = None
    ) -> Optional[tuple[int, int]]: ...
    def __len__(self) -> int: ...
    @staticmethod
    def _from_state(state: dict[str, Any]) -> Encoding: ...
    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...

@final
class WordCounter:
    def __new__(
        cls,
        *,
        normalize: bool = True,
        lowercase: bool = True,
        strip_accents: Optional[bool] = None,
        clean_text: bool = True,
        handle_chinese_chars: bool = True,
        pre_tokenizer: str = ...,
        num_threads: Optional[int] = None,
    ) -> WordCounter: ...
    @staticmethod
    def like(tokenizer: Tokenizer, num_threads: Optional[int] = None) -> WordCounter: ...
    def measure(
        self, tokenizer: Tokenizer, sizes: Optional[list[int]] = None
    ) -> list[StatsRow]: ...
    def add_texts(self, texts: list[str]) -> None: ...
    def add_file(
        self,
        path: Union[str, PathLike[str]],
        jsonl_field: Optional[str] = None,
        byte_range: Optional[tuple[int, int]] = None,
    ) -> None: ...
    def add_counts(self, items: list[tuple[str, int]]) -> None: ...
    def add_arrow(
        self,
        offsets: npt.NDArray[Any],
        data: npt.NDArray[np.uint8],
        validity: Optional[npt.NDArray[np.uint8]],
        offset: int,
        length: int,
    ) -> None: ...
    def contains(self, word: str) -> bool: ...
    def options(self) -> dict[str, Any]: ...
    def splits_as(self, other: WordCounter) -> bool: ...
    def difference(self, other: WordCounter, this: str, that: str) -> Optional[str]: ...
    def pipeline(self) -> Optional[Tokenizer]: ...
    def update(self, other: WordCounter) -> None: ...
    def fresh(self) -> WordCounter: ...
    def absorb(self, part: WordCounter) -> None: ...
    def copy(self) -> WordCounter: ...
    def get(self, word: str) -> int: ...
    def total(self) -> int: ...
    def prune(self, min_count: int) -> None: ...
    def most_common(self, n: Optional[int] = None) -> list[tuple[str, int]]: ...
    def same_as(self, other: WordCounter) -> bool: ...
    def to_bytes(self, compress: bool = True) -> bytes: ...
    @staticmethod
    def from_bytes(
        data: bytes,
        name: str = ...,
        num_threads: Optional[int] = None,
        from_worker: bool = False,
    ) -> WordCounter: ...
    def save(self, path: Union[str, PathLike[str]]) -> None: ...
    @staticmethod
    def load(path: Union[str, PathLike[str]], num_threads: Optional[int] = None) -> WordCounter: ...
    def __len__(self) -> int: ...
    def items(self) -> list[tuple[str, int]]: ...
    def train(
        self,
        *,
        vocab_size: int,
        min_frequency: int = 0,
        special_tokens: list[str],
        limit_alphabet: Optional[int] = None,
        initial_alphabet: list[str] = ...,
        continuing_subword_prefix: str = ...,
        end_of_word_suffix: str = ...,
        score: str = ...,
        progress: Optional[Callable[[int, int], object]] = None,
        tokenizer: Optional[BertOptions] = None,
        through: Optional[Tokenizer] = None,
        extend: bool = False,
        fit: bool = False,
    ) -> tuple[Tokenizer, TrainRow]: ...

@final
class MergeRows:
    def __len__(self) -> int: ...
    def dicts(self, start: int = 0, stop: Optional[int] = None) -> list[MergeRow]: ...

@final
class FileDocuments:
    def __new__(
        cls, path: Union[str, PathLike[str]], jsonl_field: Optional[str] = None
    ) -> FileDocuments: ...
    def __iter__(self) -> FileDocuments: ...
    def __next__(self) -> list[str]: ...

def encode_file_part(
    tok: Tokenizer,
    path: Union[str, PathLike[str]],
    jsonl_field: Optional[str] = None,
    byte_range: Optional[tuple[int, int]] = None,
    add_special_tokens: bool = True,
    num_threads: Optional[int] = None,
    return_offsets: bool = False,
) -> tuple[npt.NDArray[Any], ...]: ...

@final
class DocumentReader:
    def __new__(cls, name: str, jsonl_field: Optional[str] = None) -> DocumentReader: ...
    def push(self, data: bytes) -> list[str]: ...
    def finish(self) -> list[str]: ...

@final
class Tokenizer:
    def __new__(
        cls,
        vocab: list[str],
        *,
        unk_token: str = ...,
        continuing_subword_prefix: str = ...,
        max_input_chars_per_word: int = 100,
        unknown: str = ...,
        normalize: bool = True,
        lowercase: bool = True,
        strip_accents: Optional[bool] = None,
        clean_text: bool = True,
        handle_chinese_chars: bool = True,
        pre_tokenizer: str = ...,
        special_tokens: Optional[list[str]] = None,
        end_of_word_suffix: str = ...,
    ) -> Tokenizer: ...
    @staticmethod
    def from_json(json: str) -> Tokenizer: ...
    def to_json(self) -> str: ...
    def vocab_txt(self) -> str: ...
    def with_vocab(self, vocab: list[str]) -> Tokenizer: ...
    def special_tokens_in_order(self) -> list[str]: ...
    def with_options(
        self,
        *,
        unk_token: Optional[str] = None,
        continuing_subword_prefix: Optional[str] = None,
        max_input_chars_per_word: Optional[int] = None,
        unknown: Optional[str] = None,
        lowercase: Optional[bool] = None,
        strip_accents: Optional[bool] = None,
        set_strip_accents: bool = False,
        clean_text: Optional[bool] = None,
        handle_chinese_chars: Optional[bool] = None,
        pre_tokenizer: Optional[str] = None,
    ) -> Tokenizer: ...
    def settings(self) -> dict[str, object]: ...
    def encode(
        self,
        text: str,
        pair: Optional[str] = None,
        add_special_tokens: bool = True,
    ) -> Encoding: ...
    def encode_words(
        self,
        words: list[str],
        pair: Optional[list[str]] = None,
        add_special_tokens: bool = True,
    ) -> Encoding: ...
    def tokenize(self, text: str) -> list[str]: ...
    def encode_batch(
        self,
        texts: Union[list[str], list[list[str]]],
        pairs: Union[list[str], list[list[str]], None],
        add_special_tokens: bool,
        padding: _CallPadding,
        truncation: Optional[bool],
        max_length: Optional[int],
        num_threads: Optional[int] = None,
        pad_to_multiple_of: Optional[int] = None,
        is_pretokenized: bool = False,
        carried: Optional[dict[str, Any]] = None,
    ) -> list[Encoding]: ...
    def encode_batch_numpy(
        self,
        texts: list[str],
        pairs: Optional[list[str]],
        add_special_tokens: bool,
        padding: _CallPadding,
        truncation: Optional[bool],
        max_length: Optional[int],
        num_threads: Optional[int] = None,
        return_word_ids: bool = False,
        pad_to_multiple_of: Optional[int] = None,
        carried: Optional[dict[str, Any]] = None,
    ) -> dict[str, npt.NDArray[np.int64]]: ...
    def encode_batch_flat(
        self,
        texts: list[str],
        add_special_tokens: bool = True,
        num_threads: Optional[int] = None,
        return_offsets: bool = False,
        return_word_ids: bool = False,
    ) -> tuple[npt.NDArray[Any], ...]: ...
    def encode_arrow_flat(
        self,
        offsets: npt.NDArray[Any],
        data: npt.NDArray[np.uint8],
        validity: Optional[npt.NDArray[np.uint8]],
        offset: int,
        length: int,
        add_special_tokens: bool = True,
        num_threads: Optional[int] = None,
        return_offsets: bool = False,
    ) -> tuple[npt.NDArray[Any], ...]: ...
    def encode_files(
        self,
        paths: list[Union[str, PathLike[str]]],
        separator: str = ...,
        jsonl_field: Optional[str] = None,
        add_special_tokens: bool = True,
        num_threads: Optional[int] = None,
        mmap: bool = True,
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int64]]: ...
    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str: ...
    @property
    def decoder_cleanup(self) -> bool: ...
    @decoder_cleanup.setter
    def decoder_cleanup(self, cleanup: bool) -> None: ...
    @property
    def encode_special_tokens(self) -> bool: ...
    @encode_special_tokens.setter
    def encode_special_tokens(self, on: bool) -> None: ...
    def token_to_id(self, token: str) -> Optional[int]: ...
    def id_to_token(self, id: int) -> Optional[str]: ...
    def get_vocab(self) -> list[str]: ...
    def get_vocab_size(self, with_added_tokens: bool = True) -> int: ...
    def add_tokens(self, tokens: list[tuple[str, bool, bool, bool, bool, bool]]) -> int: ...
    def added_tokens(self) -> list[tuple[int, tuple[str, bool, bool, bool, bool, bool]]]: ...
    def shared_added_patterns(self) -> list[tuple[str, list[int]]]: ...
    def is_special_id(self, id: int) -> bool: ...
    def set_truncation(self, truncation: _Truncation, check_stride: bool = False) -> None: ...
    def set_padding(self, padding: _Padding) -> None: ...
    @property
    def truncation(self) -> _Truncation: ...
    @property
    def padding(self) -> _Padding: ...

def check_names(
    *,
    unknown: Optional[str] = None,
    pre_tokenizer: Optional[str] = None,
    score: Optional[str] = None,
    truncation_strategy: Optional[str] = None,
    truncation_direction: Optional[str] = None,
    padding_direction: Optional[str] = None,
) -> None: ...
def read_text(path: Union[str, PathLike[str]]) -> str: ...
def write_atomic(path: Union[str, PathLike[str]], data: bytes) -> None: ...
def read_vocab_txt(path: Union[str, PathLike[str]]) -> list[str]: ...
def write_set_atomic(
    dir: Union[str, PathLike[str]], files: list[tuple[str, bytes]], stale: list[str]
) -> None: ...
