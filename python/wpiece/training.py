"""Training WordPiece vocabularies with the real WordPiece score.

The three entry points take the same options, :class:`TrainingOptions`, as
keyword arguments; they differ only in what they count: :func:`train` reads
files, :func:`train_from_iterator` any iterable of documents, and
:func:`train_from_counts` ready word counts.
:func:`train_new_from_iterator` trains through a tokenizer's own pipeline.

The options live in :mod:`wpiece.training_options`, the record in
:mod:`wpiece.training_record`, the run itself in :mod:`wpiece.trainer`.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any, Callable, Optional, TypeVar, Union

from . import _core
from ._args import _U64_MAX, _check_str, _check_threads, _iterate
from .counts import COUNTING_OPTIONS, WordCounts, check_not_one_str, feed_texts
from .documents import Files, read_file, read_lines, require_field, resolve_files
from .quality import TextStats
from .tokenizer import Tokenizer
from .trainer import _Progress, pipeline_options, run_training
from .training_options import (
    _OPTION_NAMES,
    DEFAULT_VOCAB_SIZE,
    TrainingOptions,
    _training_options,
)
from .training_record import CurvePoint, Merge, MergeList, TrainingRecord

__all__ = [
    "CurvePoint",
    "Merge",
    "MergeList",
    "TrainingOptions",
    "TrainingRecord",
    "read_lines",
    "resolve_files",
    "train",
    "train_from_counts",
    "train_from_iterator",
]


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


Initial = Union[Tokenizer, str, "os.PathLike[str]", None]


@dataclass(frozen=True)
class _Start:
    """A tokenizer a run starts from: extended (``initial=``), or trained
    through afresh (``tokenizer=``); its pipeline splits the corpus."""

    tok: Tokenizer
    extend: bool


def _loaded(given: Initial, name: str) -> Tokenizer:
    """A tokenizer given, or loaded from its path."""
    if isinstance(given, Tokenizer):
        return given
    if isinstance(given, (str, os.PathLike)):
        return Tokenizer.from_file(given)
    kind = type(given).__name__
    raise TypeError(f"{name} must be a Tokenizer or the path of one, not {kind}")


def _start(initial: Initial, tokenizer: Initial) -> Optional[_Start]:
    if initial is not None and tokenizer is not None:
        raise TypeError(
            "give initial (a tokenizer to extend) or tokenizer (a pipeline to train a new "
            "vocabulary through), not both"
        )
    if initial is not None:
        return _Start(_loaded(initial, "initial"), extend=True)
    if tokenizer is not None:
        return _Start(_loaded(tokenizer, "tokenizer"), extend=False)
    return None


def _options(
    func: str, vocab_size: int, options: dict[str, Any], start: Optional[_Start]
) -> TrainingOptions:
    """The run's options: as given, or those of ``start``'s pipeline."""
    if start is None:
        return _training_options(func, vocab_size, options)
    return pipeline_options(func, start.tok._core, vocab_size, options, extend=start.extend)


def _counter(
    opts: TrainingOptions, num_threads: Optional[int], start: Optional[_Start] = None
) -> _core.WordCounter:
    """A word counter that normalizes and pre-tokenizes as ``opts`` say, or
    as ``start``'s pipeline does (its added tokens cut out)."""
    if start is not None:
        _check_threads(num_threads)
        return _core.WordCounter.like(start.tok._core, num_threads)
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


def _train(
    counter: _core.WordCounter, opts: TrainingOptions, start: Optional[_Start] = None
) -> Tokenizer:
    """Trains on what ``counter`` counted (through ``start``'s pipeline, on
    from its vocabulary when extending); the tokenizer holds the record."""
    through = None if start is None else start.tok._core
    core, record = run_training(counter, opts, through=through, extend=bool(start and start.extend))
    tok = Tokenizer._from_core(core)
    tok.training_record = record
    if start is not None:  # what transformers applies besides, as train_new_from_iterator keeps
        tok.clean_up_tokenization_spaces = start.tok.clean_up_tokenization_spaces
        tok._transformers_settings = dict(start.tok._transformers_settings)
    return tok


@_takes_training_options
def train(
    files: Files,
    vocab_size: int = DEFAULT_VOCAB_SIZE,
    *,
    jsonl_field: Optional[str] = None,
    held_out: float = 0.0,
    num_threads: Optional[int] = None,
    initial: Initial = None,
    tokenizer: Initial = None,
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

    ``initial``: a tokenizer to extend (or the path of its tokenizer.json,
    vocab.txt or folder), to adapt a pretrained model to a new domain. Its
    tokens keep their ids, its pipeline splits the corpus, each word starts
    as its longest-match pieces, and the new tokens (chosen by the same
    score) take the ids after its own; ``vocab_size`` counts them all.
    ``tok.training_record.added_ids`` is how many rows
    ``model.resize_token_embeddings(len(tok))`` adds.

    ``tokenizer``: a tokenizer (or its path) whose pipeline to train a new
    vocabulary through: its normalizers, pre-tokenizers and added tokens
    split the corpus (the added tokens are never counted), and the result
    is that pipeline over the new vocabulary (as
    :meth:`Tokenizer.train_new_from_iterator`).

    >>> import wpiece
    >>> base = wpiece.train(wpiece.sample_text_path(), vocab_size=500)
    >>> more = wpiece.train(wpiece.sample_text_path(), vocab_size=800, initial=base)
    >>> more.get_vocab()["the"] == base.get_vocab()["the"], more.training_record.added_ids
    (True, 300)

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
    start = _start(initial, tokenizer)
    opts = _options("train", vocab_size, options, start)
    fraction = _check_held_out(held_out)
    _check_str(jsonl_field, "jsonl_field", optional=True)
    paths = resolve_files(files)
    require_field(paths, jsonl_field)
    counter = _counter(opts, num_threads, start)
    held: list[str] = []
    bar = _Progress(opts.show_progress, len(paths), "counting", "file")
    try:
        for i, p in enumerate(paths):
            if not fraction:
                counter.add_file(p, jsonl_field)  # read and counted in the core
            else:
                texts: Iterable[str] = read_file(p, jsonl_field)
                if fraction:
                    texts = _split_documents(texts, fraction, held)
                feed_texts(counter, texts)
            bar.update_to(i + 1)
    finally:
        bar.close()
    tok = _train(counter, opts, start)
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
    initial: Initial = None,
    tokenizer: Initial = None,
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
    start = _start(initial, tokenizer)
    opts = _options("train_from_iterator", vocab_size, options, start)
    fraction = _check_held_out(held_out)
    counter = _counter(opts, num_threads, start)
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
    tok = _train(counter, opts, start)
    if fraction:
        _measure_held_out(tok, held, fraction, num_threads)
    return tok


@_takes_training_options
def train_from_counts(
    counts: Union[WordCounts, Mapping[str, int], Iterable[tuple[str, int]]],
    vocab_size: int = DEFAULT_VOCAB_SIZE,
    *,
    initial: Initial = None,
    tokenizer: Initial = None,
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
    start = _start(initial, tokenizer)
    if start is not None:
        return _from_counts_through(counts, vocab_size, options, start)
    if isinstance(counts, WordCounts) and counts._core.pipeline() is not None:
        raise ValueError(
            "these counts were split through a tokenizer's pipeline: give that tokenizer as "
            "tokenizer= (a new vocabulary through it) or initial= (to extend it)"
        )
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
        with counts._lock:  # another thread may be adding to them
            return _train(counts._core, opts)
    opts = _training_options("train_from_counts", vocab_size, options)
    counter = _counter(opts, None)
    counter.add_counts(_count_items(counts))
    return _train(counter, opts)


def _from_counts_through(
    counts: Union[WordCounts, Mapping[str, int], Iterable[tuple[str, int]]],
    vocab_size: int,
    options: dict[str, Any],
    start: _Start,
) -> Tokenizer:
    """``train_from_counts`` through ``start``'s pipeline: counts must have
    been split as it splits text (ready pairs are taken as they are)."""
    opts = _options("train_from_counts", vocab_size, options, start)
    counter = _core.WordCounter.like(start.tok._core, None)
    if isinstance(counts, WordCounts):
        why = counter.difference(counts._core, "the tokenizer's", "the counts'")
        if why is not None:
            role = "to extend" if start.extend else "given"
            raise ValueError(
                f"the counts (made with {_described(counts.options)}) were split otherwise "
                f"than the tokenizer {role} splits text: {why}"
            )
        with counts._lock:  # another thread may be adding to them
            return _train(counts._core, opts, start)
    counter.add_counts(_count_items(counts))
    return _train(counter, opts, start)


def _described(options: Mapping[str, Any]) -> str:
    if "pipeline" in options:
        return "a tokenizer's pipeline"
    return ", ".join(f"{name}={value!r}" for name, value in options.items())


def _count_items(
    counts: Union[Mapping[str, int], Iterable[tuple[str, int]]],
) -> list[tuple[str, int]]:
    """``(word, count)`` pairs from a dict or an iterable of pairs, each checked."""
    if isinstance(counts, Mapping):
        pairs: Iterable[Any] = counts.items()
    else:
        what = "a WordCounts, a dict word -> count or (word, count) pairs"
        pairs = _iterate(counts, "counts", what)
    items = []
    for k, item in enumerate(pairs):
        try:
            w, c = item
        except (TypeError, ValueError):
            kind = type(item).__name__
            raise TypeError(f"item {k} of counts is {kind}, not a (word, count) pair") from None
        if not isinstance(w, str) or not isinstance(c, int) or isinstance(c, bool):
            raise TypeError(f"counts must map str to a non-negative int, got {w!r}: {c!r}")
        if c < 0 or c > _U64_MAX:
            error = ValueError if c < 0 else OverflowError
            raise error(f"counts must be at least 0 and at most {_U64_MAX}, got {w!r}: {c}")
        items.append((w, c))
    return items
