"""One training run on counted words: the core trains and builds the
tokenizer in one call; this adds the progress bar, the record and the
warnings a run deserves. Training through a tokenizer's own pipeline
(``Tokenizer.train_new_from_iterator``) is here too, so that the tokenizer
needs nothing of :mod:`wpiece.training`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

from . import _core
from ._args import _check_threads, _str_items
from .counts import COUNTING_OPTIONS, check_not_one_str, feed_texts
from .training_options import TrainingOptions, _training_options
from .training_record import MergeList, TrainingRecord


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
            stacklevel=5,
        )


def run_training(
    counter: _core.WordCounter,
    opts: TrainingOptions,
    through: Optional[_core.Tokenizer] = None,
    extend: bool = False,
) -> tuple[_core.Tokenizer, TrainingRecord]:
    """The tokenizer trained on what ``counter`` counted (BERT-like with
    ``opts``' settings, or ``through``'s pipeline) and its record; with
    ``extend``, trained on from ``through``'s vocabulary, whose ids stay."""
    if len(counter) == 0:
        raise ValueError("the corpus has no words to train on")
    bar = _Progress(opts.show_progress, opts.vocab_size, "merging", "tok")
    try:
        core, run = counter.train(
            **opts.trainer_options(),
            progress=(lambda done, n: bar.update_to(n)) if opts.show_progress else None,
            tokenizer=None if through is not None else opts.tokenizer_options(),
            through=through,
            extend=extend,
        )
        bar.update_to(core.get_vocab_size(False))
    finally:
        bar.close()
    record = TrainingRecord(
        score=opts.score,
        vocab_size=core.get_vocab_size(False),
        base_vocab_size=run["base_vocab_size"],
        initial_tokens=run["initial_tokens"],
        total_words=run["total_words"],
        merges=MergeList(run["merges"]),
        extended_from=through.get_vocab_size(True) if extend and through is not None else 0,
        removed=[(token, cost) for token, cost in run["removed"]],
        fitted_tokens=run["fitted_tokens"],
    )
    if not extend and record.base_vocab_size > opts.vocab_size:
        import warnings

        warnings.warn(
            f"vocab_size {opts.vocab_size} is smaller than the special tokens plus the alphabet "
            f"({record.base_vocab_size}); the vocabulary keeps all of them and has no merges",
            stacklevel=4,
        )
    _warn_if_hapax_merges(record)
    return core, record


# What a pipeline's own tokenizer fixes when training through it.
_PIPELINE_OPTIONS = frozenset(COUNTING_OPTIONS) | {
    "unk_token",
    "max_input_chars_per_word",
    "unknown",
    "continuing_subword_prefix",
    "end_of_word_suffix",
}


def pipeline_options(
    func: str, pipeline: _core.Tokenizer, vocab_size: int, options: dict[str, Any], extend: bool
) -> TrainingOptions:
    """The options of a run through ``pipeline``: what the pipeline fixes
    (normalizer, pre-tokenizer, prefix, unknown token; with ``extend`` the
    special tokens too) taken from it, given by the caller a ``TypeError``."""
    owned = _PIPELINE_OPTIONS | ({"special_tokens"} if extend else set())
    fixed = sorted(name for name in options if name in owned)
    if fixed:
        source = "the tokenizer it extends" if extend else "the tokenizer it trains through"
        raise TypeError(f"{func}() takes {fixed[0]!r} from {source}")
    settings = pipeline.settings()
    specials: list[Any] = _str_items(
        options.pop("special_tokens", pipeline.special_tokens_in_order()), "special_tokens"
    )
    # The unknown token is a special one to the trainer (fresh, it goes
    # first; extending, it must be a token of the vocabulary extended). The
    # tokenizer made keeps the pipeline's own added and special tokens.
    if settings["unk_token"] not in specials:
        specials.insert(0, settings["unk_token"])
    opts = _training_options(
        func,
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
    if extend:
        ids = pipeline.get_vocab_size(True)
        if opts.vocab_size < ids:
            raise ValueError(
                f"vocab_size must be at least the {ids} ids of the tokenizer to extend, "
                f"got {opts.vocab_size}"
            )
        if settings["end_of_word_suffix"]:
            raise ValueError("a tokenizer with an end-of-word suffix cannot be extended")
    return opts


def train_through(
    pipeline: _core.Tokenizer,
    texts: Iterable[str],
    vocab_size: int,
    num_threads: Optional[int],
    options: dict[str, Any],
) -> tuple[_core.Tokenizer, TrainingRecord]:
    """A new vocabulary trained through ``pipeline`` (the words counted as it
    splits them), as that pipeline over it, and the run's record (see
    :meth:`wpiece.Tokenizer.train_new_from_iterator`)."""
    opts = pipeline_options("train_new_from_iterator", pipeline, vocab_size, options, False)
    _check_threads(num_threads)
    counter = _core.WordCounter.like(pipeline, num_threads)
    bar = _Progress(opts.show_progress, None, "counting", "doc")
    try:
        check_not_one_str(texts)
        feed_texts(counter, texts, bar.update_to)
    finally:
        bar.close()
    return run_training(counter, opts, through=pipeline)
