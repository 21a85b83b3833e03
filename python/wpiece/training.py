"""Training WordPiece vocabularies with the real WordPiece score.

The three entry points take the same options, :class:`TrainingOptions`, as
keyword arguments; they differ only in what they count: :func:`train` reads
files, :func:`train_from_iterator` any iterable of documents, and
:func:`train_from_counts` ready word counts.
:func:`train_new_from_iterator` trains through a tokenizer's own pipeline.

Why this file is long: the options class (one definition of every training
option, with its docs), the four entry points, and the run they share
(progress, held-out measurement, the training record).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Literal, Optional, TypeVar, Union, get_args

from . import _core
from ._args import PreTokenizer, UnknownMode, _check_threads
from ._rows import MergeRow
from .counts import COUNTING_OPTIONS, WordCounts, check_not_one_str, feed_texts
from .documents import Files, PathLike, read_file, read_lines, resolve_files
from .quality import TextStats
from .tokenizer import BERT_SPECIAL_TOKENS, Tokenizer

__all__ = [
    "CurvePoint",
    "Merge",
    "TrainingOptions",
    "TrainingRecord",
    "read_lines",
    "resolve_files",
    "train",
    "train_from_counts",
    "train_from_iterator",
]

Score = Literal["likelihood", "wordpiece", "frequency"]
"""What ranks the candidate merges (see :attr:`TrainingOptions.score`)."""
SCORES: tuple[str, ...] = get_args(Score)
PRE_TOKENIZERS: tuple[str, ...] = get_args(PreTokenizer)
UNKNOWN_MODES: tuple[str, ...] = get_args(UnknownMode)

DEFAULT_VOCAB_SIZE = 30000


@dataclass(frozen=True)
class Merge:
    """One merge of a training run."""

    left: str
    right: str
    merged: str
    pair_frequency: int
    left_frequency: int
    right_frequency: int
    tokens_after: int
    """Σ count × tokens over all words after this merge, in the training
    segmentation (greedy longest-match encoding may differ on a few words)."""
    added: bool
    """False when the merged string was already in the vocabulary."""
    score: float
    """What ranked the merge: ΔL for likelihood, p / (f(left) f(right)) for
    WordPiece, p for frequency (WordPiece and frequency shown as a float,
    while training ranked pairs with exact integer arithmetic)."""
    gain: float = 0.0
    """The merge's gain in log-likelihood ΔL of the training words under a
    unigram model of the units, whatever score chose it."""


@dataclass(frozen=True)
class CurvePoint:
    """How the vocabulary cut to its first ``vocab_size`` tokens encodes the
    held-out text (the encoder's real output, not the training splits)."""

    vocab_size: int
    tokens_per_word: float
    whole_word_rate: float
    unknown_rate: float


@dataclass
class TrainingRecord:
    """What training did, merge by merge: a compression curve at no extra cost.

    ``tokens_per_word()`` gives, for each vocabulary size reached, the corpus's
    tokens per word after training up to that size.
    """

    score: str
    vocab_size: int
    base_vocab_size: int
    """Special tokens plus alphabet: the size before the first merge."""
    initial_tokens: int
    total_words: int
    merges: list[Merge] = field(default_factory=list)
    held_out_fraction: float = 0.0
    """The share of documents held out of training (``held_out``)."""
    held_out_words: int = 0
    held_out: list[CurvePoint] = field(default_factory=list)
    """Held-out text encoded with the vocabulary at growing sizes; empty
    unless training held some out."""

    def tokens_per_word(self) -> list[tuple[int, float]]:
        """``(vocab size, tokens per word)`` from the alphabet to the final
        vocab, in the training splits (the corpus trained on, as the merges
        left it; see ``held_out_tokens_per_word`` for unseen text)."""
        size = self.base_vocab_size
        out = [(size, self.initial_tokens / self.total_words)]
        for m in self.merges:
            if m.added:
                size += 1
            out.append((size, m.tokens_after / self.total_words))
        return out

    def held_out_tokens_per_word(self) -> list[tuple[int, float]]:
        """``(vocab size, tokens per word)`` on the held-out text, encoded."""
        return [(p.vocab_size, p.tokens_per_word) for p in self.held_out]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrainingRecord:
        merges = [Merge(**m) for m in data["merges"]]
        held_out = [CurvePoint(**p) for p in data.get("held_out", [])]
        return cls(**{**data, "merges": merges, "held_out": held_out})

    def save(self, path: PathLike) -> None:
        """Writes JSON atomically."""
        _core.write_atomic(Path(path), json.dumps(self.to_dict(), ensure_ascii=False).encode())

    @classmethod
    def load(cls, path: PathLike) -> TrainingRecord:
        return cls.from_dict(json.loads(_core.read_text(Path(path))))


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
    the others become unknown."""
    initial_alphabet: Iterable[str] = ()
    """Characters to put in the alphabet even if the corpus lacks them."""
    continuing_subword_prefix: str = "##"
    """Marks a piece that continues a word (may be empty)."""
    end_of_word_suffix: str = ""
    """Marks a piece that ends a word, e.g. ``"_"`` (D2L style)."""
    unk_token: str = "[UNK]"
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
    show_progress: bool = False
    """Show tqdm progress bars."""

    def __post_init__(self) -> None:
        specials = tuple(self.special_tokens)
        alphabet = tuple(self.initial_alphabet)
        object.__setattr__(self, "special_tokens", specials)
        object.__setattr__(self, "initial_alphabet", alphabet)
        if self.vocab_size < 1:
            raise ValueError("vocab_size must be positive")
        if self.min_frequency < 0:
            raise ValueError("min_frequency must be >= 0")
        if self.limit_alphabet is not None and self.limit_alphabet < 0:
            raise ValueError("limit_alphabet must be >= 0")
        for ch in alphabet:
            if not isinstance(ch, str) or len(ch) != 1:
                raise ValueError(f"initial_alphabet holds single characters, got {ch!r}")
        if self.unk_token not in specials:
            raise ValueError(f"unk_token {self.unk_token!r} must be one of special_tokens")
        # The names are parsed where they are defined, in the core.
        _core.check_names(unknown=self.unknown, pre_tokenizer=self.pre_tokenizer, score=self.score)

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


_Trainer = TypeVar("_Trainer", bound=Callable[..., Tokenizer])


def _takes_training_options(func: _Trainer) -> _Trainer:
    """Spells out the :class:`TrainingOptions` that ``func`` takes as
    ``**options`` in its signature, for ``help()``, ``inspect.signature``
    and IDEs: its own parameters, then the options as keyword-only ones."""
    sig = inspect.signature(func)
    own = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
    shared = [
        inspect.Parameter(
            f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type
        )
        for f in fields(TrainingOptions)
        if f.name in _OPTION_NAMES
    ]
    leading = [p for p in own if p.kind is not p.KEYWORD_ONLY]
    trailing = [p for p in own if p.kind is p.KEYWORD_ONLY]
    # inspect reads __signature__; typeshed does not declare it on callables.
    func.__signature__ = sig.replace(parameters=[*leading, *shared, *trailing])  # type: ignore[attr-defined]
    return func


class _Progress:
    """A tqdm bar that exists only when asked for."""

    def __init__(self, enabled: bool, total: Optional[int], desc: str, unit: str) -> None:
        self.bar: Any = None  # a tqdm bar (tqdm ships no type hints)
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True)

    def update_to(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _counter(opts: TrainingOptions, num_threads: Optional[int]) -> _core.WordCounter:
    """A word counter that normalizes and pre-tokenizes as ``opts`` say."""
    split = {name: getattr(opts, name) for name in COUNTING_OPTIONS}
    return WordCounts(num_threads=num_threads, **split)._core


def _check_held_out(held_out: float) -> Fraction:
    if isinstance(held_out, bool) or not isinstance(held_out, (int, float)):
        raise TypeError(f"held_out must be a fraction between 0 and 1, got {held_out!r}")
    if not 0 <= held_out < 1:
        raise ValueError(f"held_out must be at least 0 and below 1, got {held_out!r}")
    return Fraction(held_out).limit_denominator(10**6)


def _split_documents(texts: Iterable[str], fraction: Fraction, held: list[str]) -> Iterator[str]:
    """Yields the documents to train on; appends every held-out one to
    `held`: document i is held out when ⌊(i+1)·f⌋ > ⌊i·f⌋, so exactly a
    fraction f, spread evenly through the corpus, the same on every run."""
    num, den = fraction.numerator, fraction.denominator
    for i, t in enumerate(texts):
        if ((i + 1) * num) // den > (i * num) // den:
            held.append(t)
        else:
            yield t


def _curve_sizes(base: int, final: int, points: int = 32) -> list[int]:
    """Vocab sizes from `base` to `final`, evenly spaced on a log scale."""
    if final <= base:
        return [final]
    sizes = {round(base * (final / base) ** (i / (points - 1))) for i in range(points)}
    return sorted(s for s in sizes | {final} if base <= s <= final)


def _measure_held_out(
    tok: Tokenizer, held: list[str], fraction: Fraction, num_threads: Optional[int]
) -> None:
    record = tok.training_record
    assert record is not None
    counter = _core.WordCounter.like(tok._core, num_threads)
    feed_texts(counter, held)
    sizes = _curve_sizes(record.base_vocab_size, len(tok))
    points = [TextStats(**row) for row in counter.measure(tok._core, sizes)]
    record.held_out_fraction = float(fraction)
    record.held_out_words = points[-1].words if points else 0
    record.held_out = [
        CurvePoint(n, p.tokens_per_word, p.whole_word_rate, p.unknown_rate)
        for n, p in zip(sizes, points)
    ]


def _warn_if_hapax_merges(record: TrainingRecord) -> None:
    """Many early merges joining pairs seen once (a quarter or more of the
    first 1000) means the vocabulary fills with noise: hex strings, words
    seen once. Real text trained with the likelihood score gives none."""
    early = record.merges[:1000]
    once = sum(m.pair_frequency == 1 for m in early)
    if len(early) >= 100 and 4 * once >= len(early):
        import warnings

        advice = (
            "the corpus may be too small or too uniform for this vocabulary size"
            if record.score == "likelihood"
            else f"the {record.score!r} score favours rare pairs; score='likelihood' "
            "(the default) or a min_frequency avoids this"
        )
        warnings.warn(
            f"{once} of the first {len(early)} merges join pairs seen once, so the "
            f"vocabulary will encode new text in many tokens: {advice}",
            stacklevel=4,
        )


def _merge_score(score: str, m: MergeRow) -> float:
    if score == "likelihood":
        return m["gain"]
    if score == "wordpiece":
        return float(Fraction(m["pair_frequency"], m["left_frequency"] * m["right_frequency"]))
    return float(m["pair_frequency"])


def _train(counter: _core.WordCounter, opts: TrainingOptions) -> Tokenizer:
    """Trains on what ``counter`` counted; the tokenizer holds the record."""
    vocab, record = _run_training(counter, opts)
    tok = Tokenizer(
        vocab,
        unk_token=opts.unk_token,
        unknown=opts.unknown,
        continuing_subword_prefix=opts.continuing_subword_prefix,
        end_of_word_suffix=opts.end_of_word_suffix,
        special_tokens=list(opts.special_tokens),
        normalize=opts.normalize,
        lowercase=opts.lowercase,
        strip_accents=opts.strip_accents,
        clean_text=opts.clean_text,
        handle_chinese_chars=opts.handle_chinese_chars,
        pre_tokenizer=opts.pre_tokenizer,
    )
    tok.training_record = record
    _warn_if_hapax_merges(record)
    return tok


def _run_training(
    counter: _core.WordCounter, opts: TrainingOptions
) -> tuple[list[str], TrainingRecord]:
    """The vocab trained on what ``counter`` counted, and its record."""
    if len(counter) == 0:
        raise ValueError("the corpus has no words to train on")
    bar = _Progress(opts.show_progress, opts.vocab_size, "merging", "tok")
    try:
        run = counter.train(
            vocab_size=opts.vocab_size,
            min_frequency=opts.min_frequency,
            special_tokens=list(opts.special_tokens),
            limit_alphabet=opts.limit_alphabet,
            initial_alphabet=list(opts.initial_alphabet),
            continuing_subword_prefix=opts.continuing_subword_prefix,
            end_of_word_suffix=opts.end_of_word_suffix,
            score=opts.score,
            progress=(lambda done, n: bar.update_to(n)) if opts.show_progress else None,
        )
        bar.update_to(len(run["vocab"]))
    finally:
        bar.close()
    vocab = run["vocab"]

    record = TrainingRecord(
        score=opts.score,
        vocab_size=len(vocab),
        base_vocab_size=len(set(opts.special_tokens)) + run["alphabet_size"],
        initial_tokens=run["initial_tokens"],
        total_words=run["total_words"],
        merges=[Merge(**m, score=_merge_score(opts.score, m)) for m in run["merges"]],
    )
    if record.base_vocab_size > opts.vocab_size:
        import warnings

        warnings.warn(
            f"vocab_size {opts.vocab_size} is smaller than the special tokens plus the alphabet "
            f"({record.base_vocab_size}); the vocabulary keeps all of them and has no merges",
            stacklevel=4,
        )
    return vocab, record


@_takes_training_options
def train(
    files: Files,
    vocab_size: int = DEFAULT_VOCAB_SIZE,
    *,
    jsonl_field: Optional[str] = None,
    held_out: float = 0.0,
    num_threads: Optional[int] = None,
    **options: Any,
) -> Tokenizer:
    """Trains a WordPiece vocabulary on text files and returns a ready :class:`Tokenizer`.

    ``files``: a path, a glob, or a list of them; plain text or ``.gz``, one
    document per line (``.jsonl`` files with ``jsonl_field`` set); read as
    :mod:`wpiece.documents` reads them. Words are counted in parallel with the
    same normalizer and pre-tokenizer the tokenizer then encodes with.
    ``tok.training_record`` holds every merge and the compression curve.
    Invalid UTF-8 raises ``ValueError`` naming the file and byte offset.

    ``**options``: the fields of :class:`TrainingOptions` (``score``,
    ``min_frequency``, ``special_tokens``, the normalizer settings...), the
    same for all three training functions.

    ``held_out``: a fraction of documents (spread evenly) kept out of training;
    ``tok.training_record.held_out`` then shows how the vocabulary, cut to
    growing sizes, encodes them. ``num_threads`` caps the counting threads.

    >>> import wpiece
    >>> tok = wpiece.train(wpiece.sample_text_path(), vocab_size=2000, held_out=0.05)
    >>> len(tok)
    2000
    >>> tok.tokenize("God created")
    ['god', 'created']
    >>> curve = tok.training_record.held_out_tokens_per_word()
    >>> [(n, round(t, 2)) for n, t in (curve[0], curve[-1])]
    [(63, 3.51), (2000, 1.1)]
    """
    opts = _training_options("train", vocab_size, options)
    fraction = _check_held_out(held_out)
    paths = resolve_files(files)
    counter = _counter(opts, num_threads)
    held: list[str] = []
    bar = _Progress(opts.show_progress, len(paths), "counting", "file")
    try:
        for i, p in enumerate(paths):
            if jsonl_field is None and not fraction:
                counter.add_file(p)  # read and counted in Rust, no Python string per line
            else:
                texts: Iterable[str] = read_file(p, jsonl_field)
                if fraction:
                    texts = _split_documents(texts, fraction, held)
                feed_texts(counter, texts)
            bar.update_to(i + 1)
    finally:
        bar.close()
    tok = _train(counter, opts)
    if fraction:
        _measure_held_out(tok, held, fraction, num_threads)
    return tok


@_takes_training_options
def train_from_iterator(
    texts: Iterable[str],
    vocab_size: int = DEFAULT_VOCAB_SIZE,
    *,
    held_out: float = 0.0,
    num_threads: Optional[int] = None,
    **options: Any,
) -> Tokenizer:
    """Trains on any iterable of ``str`` documents (buffered; counting runs
    without the GIL). ``**options``, ``held_out`` and ``num_threads`` as in
    :func:`train`.

    >>> import wpiece
    >>> corpus = ["This is the Hugging Face Course.", "This chapter is about tokenization.",
    ...     "This section shows several tokenizer algorithms.",
    ...     "Hopefully, you will be able to understand how they are trained and generate tokens."]
    >>> tok = wpiece.train_from_iterator(corpus, vocab_size=70, lowercase=False,
    ...     score="wordpiece")  # the HF course's vocabulary
    >>> tok.tokenize("Hugging")
    ['Hugg', '##i', '##n', '##g']
    """
    opts = _training_options("train_from_iterator", vocab_size, options)
    fraction = _check_held_out(held_out)
    counter = _counter(opts, num_threads)
    held: list[str] = []
    bar = _Progress(opts.show_progress, None, "counting", "doc")
    try:
        check_not_one_str(texts)  # before a held-out split hides it in a generator
        feed_texts(
            counter,
            _split_documents(texts, fraction, held) if fraction else texts,
            bar.update_to,
        )
    finally:
        bar.close()
    tok = _train(counter, opts)
    if fraction:
        _measure_held_out(tok, held, fraction, num_threads)
    return tok


# What a pipeline's own tokenizer fixes when training through it.
_PIPELINE_OPTIONS = frozenset(COUNTING_OPTIONS) | {
    "unk_token",
    "unknown",
    "continuing_subword_prefix",
    "end_of_word_suffix",
}


def train_new_from_iterator(
    tokenizer: Tokenizer,
    texts: Iterable[str],
    vocab_size: int = DEFAULT_VOCAB_SIZE,
    *,
    num_threads: Optional[int] = None,
    **options: Any,
) -> Tokenizer:
    """A new vocabulary trained through ``tokenizer``'s own pipeline (see
    :meth:`wpiece.Tokenizer.train_new_from_iterator`)."""
    fixed = sorted(name for name in options if name in _PIPELINE_OPTIONS)
    if fixed:
        raise TypeError(
            f"train_new_from_iterator() takes {fixed[0]!r} from the tokenizer it trains through"
        )
    settings = tokenizer.settings
    specials = list(options.pop("special_tokens", tokenizer._core.special_tokens_in_order()))
    if settings["unk_token"] not in specials:
        specials.insert(0, settings["unk_token"])
    opts = _training_options(
        "train_new_from_iterator",
        vocab_size,
        {
            **options,
            "special_tokens": specials,
            "unk_token": settings["unk_token"],
            "unknown": settings["unknown"],
            "continuing_subword_prefix": settings["continuing_subword_prefix"],
            "end_of_word_suffix": settings["end_of_word_suffix"],
        },
    )
    _check_threads(num_threads)
    counter = _core.WordCounter.like(tokenizer._core, num_threads)
    bar = _Progress(opts.show_progress, None, "counting", "doc")
    try:
        check_not_one_str(texts)
        feed_texts(counter, texts, bar.update_to)
    finally:
        bar.close()
    vocab, record = _run_training(counter, opts)
    new = Tokenizer._from_core(tokenizer._core.with_vocab(vocab))
    new.training_record = record
    _warn_if_hapax_merges(record)
    return new


@_takes_training_options
def train_from_counts(
    counts: Union[WordCounts, Mapping[str, int], Iterable[tuple[str, int]]],
    vocab_size: int = DEFAULT_VOCAB_SIZE,
    **options: Any,
) -> Tokenizer:
    """Trains on ready word counts, taken as words as they are (their order is
    the first-appearance order used to break ties; an ``end_of_word_suffix`` is
    appended to each). ``**options`` as in :func:`train`; the normalizer
    options only configure the returned tokenizer.

    ``counts`` may be a :class:`wpiece.WordCounts` (from
    :func:`wpiece.count_words`): the tokenizer then splits text as the counts
    were split; its options are the defaults here, and a conflicting one is
    a ``ValueError``.

    >>> import wpiece
    >>> counts = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    >>> tok = wpiece.train_from_counts(counts, 22, score="frequency",
    ...     continuing_subword_prefix="", end_of_word_suffix="_", special_tokens=["[UNK]"])
    >>> tok.tokenize("slowest")
    ['s', 'low', 'est_']
    >>> tok.decode(tok.encode("slow newest").ids)
    'slow newest'

    """
    if isinstance(counts, WordCounts):
        # Options not given follow the counts; given ones must split as they did.
        counted = counts.options
        for name, value in counted.items():
            options.setdefault(name, value)
        wanted = WordCounts(**{name: options[name] for name in counted})
        if not wanted._core.splits_as(counts._core):
            differ = [f"{n}={options[n]!r}" for n in counted if options[n] != counted[n]]
            made = [f"{n}={counted[n]!r}" for n in counted if options[n] != counted[n]]
            raise ValueError(
                f"the counts were made with {', '.join(made)}; training with "
                f"{', '.join(differ)} would encode text otherwise than it was counted"
            )
        opts = _training_options("train_from_counts", vocab_size, options)
        return _train(counts._core, opts)
    opts = _training_options("train_from_counts", vocab_size, options)
    items = list(counts.items()) if isinstance(counts, Mapping) else list(counts)
    for w, c in items:
        if not isinstance(w, str) or not isinstance(c, int) or isinstance(c, bool) or c < 0:
            raise TypeError(f"counts must map str to a non-negative int, got {w!r}: {c!r}")
    counter = _counter(opts, None)
    counter.add_counts(items)
    return _train(counter, opts)
