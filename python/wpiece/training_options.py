"""The options of a training run: :class:`TrainingOptions`, the one
definition of every training option and its docs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal, Optional, get_args

from . import _core
from ._args import PreTokenizer, UnknownMode, _check_options, _iterate, _str_items
from ._rows import BertOptions

__all__ = ["DEFAULT_VOCAB_SIZE", "Score", "TrainingOptions"]

Score = Literal["likelihood", "wordpiece", "frequency"]
"""What ranks the candidate merges (see :attr:`TrainingOptions.score`)."""
SCORES: tuple[str, ...] = get_args(Score)
PRE_TOKENIZERS: tuple[str, ...] = get_args(PreTokenizer)
UNKNOWN_MODES: tuple[str, ...] = get_args(UnknownMode)

DEFAULT_VOCAB_SIZE = 30000
BERT_SPECIAL_TOKENS: tuple[str, ...] = _core.BERT_SPECIAL_TOKENS


@dataclass(frozen=True)
class TrainingOptions:
    """The options of a training run, checked when built: the keyword
    arguments that :func:`train`, :func:`train_from_iterator` and
    :func:`train_from_counts` all take (``vocab_size`` is also their second
    positional argument). Sequences are kept as tuples.

    >>> opts = TrainingOptions(vocab_size=70, lowercase=False, score="wordpiece")
    >>> opts.min_frequency, opts.special_tokens
    (0, ('[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'))
    >>> import wpiece
    >>> tok = wpiece.train_from_iterator(["Hugging hugs huggable"], **opts.to_dict())
    >>> tok.settings["lowercase"], tok.training_record.score
    (False, 'wordpiece')
    >>> TrainingOptions(special_tokens=["[PAD]"])
    Traceback (most recent call last):
    ValueError: unk_token '[UNK]' must be one of special_tokens
    """

    vocab_size: int = DEFAULT_VOCAB_SIZE
    """The size to reach, special tokens and alphabet included (it stops
    sooner when no pair is left to merge)."""
    min_frequency: int = 0
    """Pairs seen fewer times than this are never merged."""
    special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS
    """The first tokens of the vocabulary, in order; must hold ``unk_token``."""
    limit_alphabet: Optional[int] = None
    """Keep at most this many characters (the most frequent) in the alphabet;
    the others become unknown. The characters of ``initial_alphabet`` are
    always kept, and count toward the limit: more of them than the limit
    leaves only them."""
    initial_alphabet: Iterable[str] = ()
    """Characters to put in the alphabet even if the corpus lacks them."""
    continuing_subword_prefix: str = "##"
    """Marks a piece that continues a word (may be empty)."""
    end_of_word_suffix: str = ""
    """Marks a piece that ends a word, e.g. ``"_"`` (D2L style)."""
    unk_token: str = "[UNK]"
    max_input_chars_per_word: int = 100
    """The trained tokenizer encodes a longer word (in chars) as one unknown
    token, as HF's WordPiece does; training counts every word."""
    unknown: UnknownMode = "word"
    """A word with an unknown character becomes one unknown token
    (``"word"``, as BERT) or gets one per unknown character (``"char"``)."""
    normalize: bool = True
    """Run the BERT normalizer (``lowercase``, ``strip_accents``,
    ``clean_text``, ``handle_chinese_chars`` configure it)."""
    lowercase: bool = True
    strip_accents: Optional[bool] = None
    """None: strip accents when lowercasing (as BERT)."""
    clean_text: bool = True
    handle_chinese_chars: bool = True
    pre_tokenizer: PreTokenizer = "bert"
    """``"bert"`` splits at whitespace and punctuation, ``"whitespace"`` at
    whitespace only."""
    score: Score = "likelihood"
    """``"likelihood"`` (default) merges the pair that most raises the
    likelihood of the corpus under a unigram model of the units (Schuster &
    Nakajima 2012): frequent, strongly associated pairs first.
    ``"wordpiece"`` is the textbook score p/(f(x)·f(y)) of the HF course,
    which favours pairs seen once; ``"frequency"`` is BPE's."""
    fit: bool = False
    """Fit the vocabulary to the encoder: train as far past ``vocab_size``
    as it is past the alphabet (twice the size, fresh), then remove, round
    by round, the tokens whose loss costs the fewest tokens when the
    training words are encoded longest-match-first, as they will be, until
    ``vocab_size``; then join the most frequent pairs of adjacent tokens in
    those encodings (a twentieth of the size) and prune again, kept if it
    lowers the tokens (see ``src/train/fit.rs``). Deterministic at any
    thread count; ``training_record.removed`` lists what went, and joined
    tokens come last."""
    show_progress: bool = False
    """Show tqdm progress bars."""

    def __post_init__(self) -> None:
        specials = tuple(_str_items(self.special_tokens, "special_tokens"))
        alphabet = tuple(
            self.initial_alphabet  # a str is its characters
            if isinstance(self.initial_alphabet, str)
            else _iterate(self.initial_alphabet, "initial_alphabet", "a list of str")
        )
        object.__setattr__(self, "special_tokens", specials)
        object.__setattr__(self, "initial_alphabet", alphabet)
        _check_options({f.name: getattr(self, f.name) for f in fields(self)})
        for k, ch in enumerate(alphabet):
            if not isinstance(ch, str):
                raise TypeError(f"item {k} of initial_alphabet is {type(ch).__name__}, not str")
            if len(ch) != 1:
                raise ValueError(f"initial_alphabet holds single characters, item {k} is {ch!r}")
        for k, token in enumerate(specials):
            if not token:
                # No text matches it, and vocab.txt would hold it as an empty line.
                raise ValueError(f"special_tokens: item {k} is empty")
        if self.unk_token not in specials:
            raise ValueError(f"unk_token {self.unk_token!r} must be one of special_tokens")
        # The names are parsed where they are defined, in the core.
        _core.check_names(unknown=self.unknown, pre_tokenizer=self.pre_tokenizer, score=self.score)

    def tokenizer_options(self) -> BertOptions:
        """The settings of the BERT-like tokenizer these options train."""
        return {
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "unknown": self.unknown,
            "normalize": self.normalize,
            "lowercase": self.lowercase,
            "strip_accents": self.strip_accents,
            "clean_text": self.clean_text,
            "handle_chinese_chars": self.handle_chinese_chars,
            "pre_tokenizer": self.pre_tokenizer,
            "special_tokens": list(self.special_tokens),
            "end_of_word_suffix": self.end_of_word_suffix,
        }

    def trainer_options(self) -> dict[str, Any]:
        """The options of the core trainer."""
        return {
            "vocab_size": self.vocab_size,
            "min_frequency": self.min_frequency,
            "special_tokens": list(self.special_tokens),
            "limit_alphabet": self.limit_alphabet,
            "initial_alphabet": list(self.initial_alphabet),
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "end_of_word_suffix": self.end_of_word_suffix,
            "score": self.score,
            "fit": self.fit,
        }

    def to_dict(self) -> dict[str, Any]:
        """The options as keyword arguments of the training functions."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


# The keyword arguments that the training functions take as **options.
_OPTION_NAMES = frozenset(f.name for f in fields(TrainingOptions)) - {"vocab_size"}


def _training_options(caller: str, vocab_size: int, options: Mapping[str, Any]) -> TrainingOptions:
    unknown = [name for name in options if name not in _OPTION_NAMES]
    if unknown:
        raise TypeError(f"{caller}() got an unexpected keyword argument {unknown[0]!r}")
    return TrainingOptions(vocab_size=vocab_size, **options)
