"""What a training run did, merge by merge: :class:`TrainingRecord`, saved
beside a trained tokenizer as ``training_record.json``."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Optional, Union, overload

from . import _core
from ._args import _path
from ._rows import MergeRow
from .documents import PathLike

__all__ = ["CurvePoint", "Merge", "MergeList", "TrainingRecord"]


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


def merge_of_row(row: MergeRow) -> Merge:
    """The :class:`Merge` of a row the core made, which holds exactly its
    fields: the dict becomes the merge's own, where ``Merge(**row)`` sets each
    field through ``object.__setattr__`` (a frozen dataclass): 30,000 merges
    in 14 ms instead of 60."""
    merge = object.__new__(Merge)
    object.__setattr__(merge, "__dict__", row)
    return merge


class MergeList(Sequence[Merge]):
    """A training run's merges, in order: a sequence of :class:`Merge`.

    The core keeps them until they are first read (made into Python objects
    as training returned, 30,000 merges took a twelfth of training 103 MB
    of English). It compares equal to a list (or tuple) of the same merges.
    Not a ``list``: ``dataclasses.asdict`` copies it as it is, where
    :meth:`TrainingRecord.to_dict` gives each merge as a dict.

    >>> import wpiece
    >>> merges = wpiece.train(wpiece.sample_text_path(), vocab_size=300).training_record.merges
    >>> len(merges) > 0, merges[0].merged == merges[0].left + merges[0].right.removeprefix("##")
    (True, True)
    """

    __slots__ = ("_merges", "_rows")

    def __init__(self, merges: Union[_core.MergeRows, Sequence[Merge]] = ()) -> None:
        self._rows: _core.MergeRows | None = None
        self._merges: list[Merge] | None = None
        if isinstance(merges, _core.MergeRows):
            self._rows = merges
        else:
            items = list(merges)
            bad = next((m for m in items if not isinstance(m, Merge)), None)
            if bad is not None:
                raise TypeError(f"a MergeList holds Merge objects, got {type(bad).__name__}")
            self._merges = items

    def _all(self) -> list[Merge]:
        if self._merges is None:
            assert self._rows is not None
            self._merges = [merge_of_row(row) for row in self._rows.dicts()]
            self._rows = None
        return self._merges

    def __len__(self) -> int:
        return len(self._rows) if self._rows is not None else len(self._all())

    @overload
    def __getitem__(self, index: int) -> Merge: ...
    @overload
    def __getitem__(self, index: slice) -> list[Merge]: ...
    def __getitem__(self, index: Union[int, slice]) -> Union[Merge, list[Merge]]:
        # A run of merges read before the whole (training's own look at the
        # first thousand) is made from those rows alone.
        if self._rows is not None and isinstance(index, slice) and index.step in (None, 1):
            start, stop, _ = index.indices(len(self._rows))
            return [merge_of_row(row) for row in self._rows.dicts(start, max(start, stop))]
        return self._all()[index]

    def __iter__(self) -> Iterator[Merge]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (MergeList, list, tuple)):
            return self._all() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable-like, as a list

    def __repr__(self) -> str:
        return repr(self._all())

    def __reduce__(self) -> tuple[Any, ...]:
        return (MergeList, (self._all(),))


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
    merges: Sequence[Merge] = field(default_factory=MergeList)
    """Every merge, in order (a :class:`MergeList`, read when first used)."""
    held_out_fraction: float = 0.0
    """The share of documents held out of training (``held_out``)."""
    held_out_words: int = 0
    held_out: list[CurvePoint] = field(default_factory=list)
    """Held-out text encoded with the vocabulary at growing sizes; empty
    unless training held some out."""
    removed: list[tuple[str, int]] = field(default_factory=list)
    """With ``fit``: the tokens of the grown vocabulary that the fit removed,
    in order, each with its cost when it went (training-word tokens its loss
    added). Tokens the fit joined from two (``fit``) are not in the grown
    vocabulary: they come last in the fitted one."""
    extended_from: int = 0
    """The ids of the tokenizer this run extended (``initial=``), which kept
    them; 0 for a vocabulary trained afresh."""
    fitted_tokens: int = 0
    """With ``fit``: the training words' tokens, each word encoded by longest
    match with the fitted vocabulary (0 otherwise)."""

    @property
    def added_ids(self) -> int:
        """The ids the run added: the rows ``resize_token_embeddings`` grows
        an extended model's embeddings by (all of them for a fresh run)."""
        return self.vocab_size - self.extended_from

    def tokens_per_word(self) -> list[tuple[int, float]]:
        """``(vocab size, tokens per word)`` from the alphabet to the vocab
        the merges reached, in the training splits (the corpus trained on, as
        the merges left it; see ``held_out_tokens_per_word`` for unseen
        text). With ``fit`` the merges grew past the final size, which
        :meth:`fitted_tokens_per_word` describes."""
        size = self.base_vocab_size
        out = [(size, self.initial_tokens / self.total_words)]
        for m in self.merges:
            if m.added:
                size += 1
            out.append((size, m.tokens_after / self.total_words))
        return out

    def fitted_tokens_per_word(self) -> Optional[float]:
        """With ``fit``: tokens per word of the corpus trained on, encoded by
        longest match with the fitted vocabulary, the objective the fit
        lowered; None otherwise."""
        return self.fitted_tokens / self.total_words if self.fitted_tokens else None

    def held_out_tokens_per_word(self) -> list[tuple[int, float]]:
        """``(vocab size, tokens per word)`` on the held-out text, encoded."""
        return [(p.vocab_size, p.tokens_per_word) for p in self.held_out]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(replace(self, merges=[]))
        data["merges"] = [asdict(m) for m in self.merges]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrainingRecord:
        if not isinstance(data, Mapping):
            raise TypeError(f"data must be a dict, got {type(data).__name__}")
        merges = MergeList([Merge(**m) for m in data["merges"]])
        held_out = [CurvePoint(**p) for p in data.get("held_out", [])]
        removed = [(t, c) for t, c in data.get("removed", [])]
        return cls(**{**data, "merges": merges, "held_out": held_out, "removed": removed})

    def save(self, path: PathLike) -> None:
        """Writes JSON atomically."""
        _core.write_atomic(_path(path), json.dumps(self.to_dict(), ensure_ascii=False).encode())

    @classmethod
    def load(cls, path: PathLike) -> TrainingRecord:
        return cls.from_dict(json.loads(_core.read_text(_path(path))))
