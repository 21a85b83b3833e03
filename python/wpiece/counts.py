"""Word counts as a value: count a corpus in parts (files, machines, Spark or
Ray partitions), merge the parts, keep them on disk, train on them.

Counting is a map-reduce: :func:`count_words` counts one part,
:class:`WordCounts` add up (``a + b``) keeping first-appearance order (``a``'s
words, then ``b``'s new ones), so the parts of a corpus, counted apart and
merged in order, train exactly the vocabulary that the whole corpus trains.

>>> import wpiece
>>> part1 = wpiece.count_words(["The cat sat.", "the dog"])
>>> part2 = wpiece.count_words(["A cat!"])
>>> counts = part1 + part2
>>> counts.most_common(2)
[('the', 2), ('cat', 2)]
>>> len(counts), counts["dog"], counts.total()
(7, 1, 9)
>>> tok = wpiece.train_from_counts(counts, vocab_size=40)
>>> tok.settings["lowercase"]
True
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import Any, Callable, Optional, Union

from . import _core
from ._args import _U64_MAX, PreTokenizer, _check_options, _check_str, _check_threads, _path
from .arrow import is_arrow_column
from .documents import Files, PathLike, require_field, resolve_files

__all__ = ["COUNTING_OPTIONS", "WordCounts", "count_words"]

COUNTING_OPTIONS: tuple[str, ...] = (
    "normalize",
    "lowercase",
    "strip_accents",
    "clean_text",
    "handle_chinese_chars",
    "pre_tokenizer",
)
"""The options that decide how text is split into words: the normalizer's and
the pre-tokenizer's, as :class:`wpiece.TrainingOptions` names them."""

_BUFFER_DOCS = 8192


def check_counting_options(caller: str, options: Mapping[str, Any]) -> None:
    """Refuses unknown option names and bad values before anything is read
    (``tokenizer`` is taken too: split as that tokenizer does)."""
    unknown = [k for k in options if k not in (*COUNTING_OPTIONS, "tokenizer")]
    if unknown:
        raise TypeError(f"{caller}() got an unexpected keyword argument {unknown[0]!r}")
    WordCounts(**options)


def pipeline_of(tokenizer: object) -> _core.Tokenizer:
    """The core of a :class:`wpiece.Tokenizer` given as ``tokenizer``."""
    core = getattr(tokenizer, "_core", None)
    if not isinstance(core, _core.Tokenizer):
        # A path is for the training functions, which load it themselves.
        hint = (
            " (load a path with wpiece.Tokenizer.from_file)" if isinstance(tokenizer, str) else ""
        )
        raise TypeError(
            f"tokenizer must be a wpiece.Tokenizer{hint}, not {type(tokenizer).__name__}"
        )
    return core


def check_not_one_str(texts: object, name: str = "texts") -> None:
    """Refuses one str (or bytes) given for many, and what is not iterable."""
    if isinstance(texts, (str, bytes)):
        raise TypeError(
            f"{name} must be an iterable of str, got a single {type(texts).__name__}; "
            "wrap it in a list"
        )
    if not isinstance(texts, Iterable) and not hasattr(texts, "__getitem__"):
        raise TypeError(f"{name} must be an iterable of str, got {type(texts).__name__}")


def feed_texts(
    counter: _core.WordCounter,
    texts: Iterable[str],
    counted: Optional[Callable[[int], object]] = None,
    name: str = "texts",
) -> None:
    """Counts documents in buffers of ``_BUFFER_DOCS`` (the GIL is held only
    to fill one); ``counted(n)`` hears how many documents are done. ``name``:
    the argument ``texts`` was given as, for errors."""
    check_not_one_str(texts, name)
    buffer: list[str] = []
    done = 0
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"{name}: item {i} of the corpus is {type(t).__name__}, not str")
        buffer.append(t)
        if len(buffer) >= _BUFFER_DOCS:
            counter.add_texts(buffer)
            done += len(buffer)
            buffer = []
            if counted is not None:
                counted(done)
    if buffer:
        counter.add_texts(buffer)
        if counted is not None:
            counted(done + len(buffer))


class WordCounts:
    """Word types in first-appearance order with their counts, and the
    options they were split with.

    Picklable, mergeable (``a + b``, ``a += b``, ``a.update(b)``; counts
    split with other options refuse to merge), savable (:meth:`save`,
    :meth:`load`: a compact, versioned, checksummed file). Made by
    :func:`count_words`; :func:`wpiece.train_from_counts` trains on it.
    Each call adds all or nothing. Safe to share across threads: calls on
    one object take turns (counting itself runs in parallel, into a part of
    each call's own, added under the object's lock).

    >>> counts = WordCounts(lowercase=False)
    >>> counts.add_texts(["Hello hello world"])
    >>> counts.items()
    [('Hello', 1), ('hello', 1), ('world', 1)]
    >>> counts.options["lowercase"]
    False

    ``tokenizer``: split as that :class:`wpiece.Tokenizer` encodes text
    instead, any pipeline of a tokenizer.json (its normalizers and
    pre-tokenizers), its added tokens cut out and never counted; saved counts
    record that pipeline, and counts split otherwise refuse to merge, saying
    what differs.

    >>> import wpiece
    >>> tok = wpiece.Tokenizer.from_file(wpiece.sample_vocab_path())
    >>> through = WordCounts(tokenizer=tok)
    >>> through.add_texts(["[CLS] Hello, hello!"])
    >>> through.items()
    [('hello', 2), (',', 1), ('!', 1)]
    """

    __slots__ = ("_core", "_lock")

    def __init__(
        self,
        *,
        normalize: bool = True,
        lowercase: bool = True,
        strip_accents: Optional[bool] = None,
        clean_text: bool = True,
        handle_chinese_chars: bool = True,
        pre_tokenizer: PreTokenizer = "bert",
        num_threads: Optional[int] = None,
        tokenizer: Any = None,
    ) -> None:
        _check_threads(num_threads)
        self._lock = threading.RLock()
        if tokenizer is not None:
            given = {
                "normalize": normalize is not True,
                "lowercase": lowercase is not True,
                "strip_accents": strip_accents is not None,
                "clean_text": clean_text is not True,
                "handle_chinese_chars": handle_chinese_chars is not True,
                "pre_tokenizer": pre_tokenizer != "bert",
            }
            if any(given.values()):
                name = next(n for n, g in given.items() if g)
                raise TypeError(f"WordCounts() takes {name!r} from the tokenizer it splits as")
            self._core = _core.WordCounter.like(pipeline_of(tokenizer), num_threads)
            return
        _check_options(
            {
                "normalize": normalize,
                "lowercase": lowercase,
                "strip_accents": strip_accents,
                "clean_text": clean_text,
                "handle_chinese_chars": handle_chinese_chars,
                "pre_tokenizer": pre_tokenizer,
            }
        )
        self._core = _core.WordCounter(
            normalize=normalize,
            lowercase=lowercase,
            strip_accents=strip_accents,
            clean_text=clean_text,
            handle_chinese_chars=handle_chinese_chars,
            pre_tokenizer=pre_tokenizer,
            num_threads=num_threads,
        )

    @classmethod
    def _wrap(cls, core: _core.WordCounter) -> WordCounts:
        counts = cls.__new__(cls)
        counts._core = core
        counts._lock = threading.RLock()
        return counts

    # Counting -------------------------------------------------------------

    def _count(self, count: Callable[[_core.WordCounter], object]) -> None:
        """Counts into an empty part, then adds it: on an error (a bad item,
        a missing file, Ctrl-C) these counts stay as they were."""
        with self._lock:
            part = self._core.fresh()
        count(part)
        with self._lock:
            self._core.absorb(part)

    def add_texts(self, texts: Iterable[str]) -> None:
        """Counts the words of documents (buffered; counting runs without the GIL)."""
        self._count(lambda part: feed_texts(part, texts))

    def add_files(self, files: Files, *, jsonl_field: Optional[str] = None) -> None:
        """Counts text files (paths, globs; ``.gz``; ``.jsonl`` with ``jsonl_field``)."""
        paths = resolve_files(files)
        _check_str(jsonl_field, "jsonl_field", optional=True)
        require_field(paths, jsonl_field)

        def count(part: _core.WordCounter) -> None:
            for p in paths:
                part.add_file(p, jsonl_field)  # read and counted in the core

        self._count(count)

    def add_arrow(self, array: Any) -> None:
        """Counts a pyarrow ``StringArray``, ``LargeStringArray`` or
        ``ChunkedArray`` of them (or a column with the Arrow PyCapsule
        interface, as :meth:`Tokenizer.encode_arrow` takes it), read from its
        buffers (no Python ``str`` per row); null rows count nothing."""
        from .arrow import string_chunks

        chunks = list(string_chunks(array))

        def count(part: _core.WordCounter) -> None:
            for chunk in chunks:
                part.add_arrow(*chunk)

        self._count(count)

    # Reading --------------------------------------------------------------

    @property
    def options(self) -> dict[str, Any]:
        """How words were split: the :data:`COUNTING_OPTIONS` as a dict (and,
        for counts split through a tokenizer, ``"pipeline"``: its
        normalizer, pre-tokenizer and added tokens as tokenizer.json writes
        them)."""
        with self._lock:
            return dict(self._core.options())

    def __len__(self) -> int:
        with self._lock:
            return len(self._core)

    def __getitem__(self, word: str) -> int:
        """The count of ``word``; 0 if it was never counted (as ``Counter``)."""
        if not isinstance(word, str):
            raise TypeError(f"word must be str, got {type(word).__name__}")
        with self._lock:
            return self._core.get(word)

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        with self._lock:
            return self._core.contains(word)

    def __iter__(self) -> Iterator[str]:
        return (w for w, _ in self.items())

    def items(self) -> list[tuple[str, int]]:
        """``(word, count)`` pairs in first-appearance order."""
        with self._lock:
            return self._core.items()

    def total(self) -> int:
        """The sum of all counts: the number of words counted."""
        with self._lock:
            return self._core.total()

    def most_common(self, n: Optional[int] = None) -> list[tuple[str, int]]:
        """The ``n`` most frequent words (all if None), most frequent first,
        ties in first-appearance order."""
        if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 0):
            raise ValueError(f"n must be a non-negative int or None, got {n!r}")
        # More than there can be words: all of them.
        with self._lock:
            return self._core.most_common(None if n is not None and n > _U64_MAX else n)

    # Changing -------------------------------------------------------------

    def prune(self, min_count: int) -> WordCounts:
        """Drops, in place, the words counted fewer than ``min_count`` times,
        to bound memory on huge corpora (a word pruned from a part is lost
        even if other parts hold it too: prune the merged counts when you
        can). Returns ``self``."""
        if not isinstance(min_count, int) or isinstance(min_count, bool) or min_count < 0:
            raise ValueError(f"min_count must be a non-negative int, got {min_count!r}")
        with self._lock:
            if min_count > _U64_MAX:
                # Past any count: every word goes.
                self._core = self._core.fresh()
            else:
                self._core.prune(min_count)
        return self

    def update(self, other: WordCounts) -> None:
        """Adds ``other``'s counts in place; its new words come after these.
        ``ValueError`` if ``other`` was split with other options."""
        if not isinstance(other, WordCounts):
            raise TypeError(f"can only merge WordCounts: other is {type(other).__name__}")
        with _locked(self, other):
            self._core.update(other._core.copy() if other is self else other._core)

    def copy(self) -> WordCounts:
        with self._lock:
            return WordCounts._wrap(self._core.copy())

    def __add__(self, other: object) -> WordCounts:
        if not isinstance(other, WordCounts):
            return NotImplemented
        out = self.copy()
        out.update(other)
        return out

    def __iadd__(self, other: object) -> WordCounts:
        if not isinstance(other, WordCounts):
            return NotImplemented
        self.update(other)
        return self

    def __eq__(self, other: object) -> bool:
        """Same options, words, counts and order."""
        if not isinstance(other, WordCounts):
            return NotImplemented
        with _locked(self, other):
            return self._core.same_as(other._core)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"WordCounts({len(self)} words, {self.total()} counted)"

    # Persistence ----------------------------------------------------------

    def save(self, path: PathLike) -> None:
        """Writes the counts to ``path`` atomically (a temp file renamed over
        it): gzip-compressed, versioned, with the options.

        >>> import tempfile, os, wpiece
        >>> path = os.path.join(tempfile.mkdtemp(), "counts.wpc")
        >>> wpiece.count_words(["to be or not to be"]).save(path)
        >>> WordCounts.load(path).most_common(1)
        [('to', 2)]
        """
        target = _path(path)
        with self._lock:
            self._core.save(target)

    @classmethod
    def load(cls, path: PathLike) -> WordCounts:
        """Reads counts that :meth:`save` wrote; a damaged or foreign file
        raises ``ValueError`` saying why."""
        return cls._wrap(_core.WordCounter.load(_path(path)))

    def to_bytes(self) -> bytes:
        """The bytes :meth:`save` writes."""
        with self._lock:
            return self._core.to_bytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> WordCounts:
        """Counts from :meth:`to_bytes`'s bytes."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"data must be bytes, got {type(data).__name__}")
        return cls._wrap(_core.WordCounter.from_bytes(bytes(data)))

    def __reduce__(self) -> tuple[Any, ...]:
        return (WordCounts.from_bytes, (self.to_bytes(),))


Source = Union[PathLike, Iterable[str], Any]
"""What :func:`count_words` counts: a path or glob (``str`` or
``os.PathLike``), a list of ``os.PathLike``, an iterable of ``str`` documents,
or a pyarrow string array."""


@contextmanager
def _locked(*counts: WordCounts) -> Iterator[None]:
    """Holds the locks of several counts, taken in one global order (so two
    threads merging ``a`` into ``b`` and ``b`` into ``a`` cannot deadlock)."""
    with ExitStack() as stack:
        for c in sorted({id(c): c for c in counts}.values(), key=id):
            stack.enter_context(c._lock)
        yield


def count_words(
    source: Source,
    *,
    jsonl_field: Optional[str] = None,
    num_threads: Optional[int] = None,
    tokenizer: Any = None,
    **options: Any,
) -> WordCounts:
    """Counts the words of a corpus, split as a tokenizer trained with the
    same ``options`` (``lowercase``, ``strip_accents``, ``pre_tokenizer``...,
    see :data:`COUNTING_OPTIONS`) splits them.

    ``source``: a path or glob given as ``str`` or ``os.PathLike``, or a
    list of ``os.PathLike`` (plain text or ``.gz``, one document per line;
    ``.jsonl`` with ``jsonl_field``); any other iterable of ``str`` is taken
    as the documents themselves (so a list of ``str`` is documents, not
    paths); a pyarrow ``StringArray`` / ``LargeStringArray`` /
    ``ChunkedArray``, or a column with the Arrow PyCapsule interface (a
    pandas >= 2.2 or polars ``Series``), is read from its buffers. ``num_threads`` caps the
    counting threads. ``tokenizer``: split as that tokenizer encodes text
    (any pipeline; see :class:`WordCounts`), in place of the options.

    >>> import wpiece
    >>> counts = wpiece.count_words(wpiece.sample_text_path())
    >>> counts.most_common(3)
    [('and', 1018), (',', 841), ('the', 821)]
    >>> wpiece.count_words(["Ünïcode"], lowercase=False).items()
    [('Ünïcode', 1)]
    """
    check_counting_options("count_words", options)
    _check_str(jsonl_field, "jsonl_field", optional=True)
    counts = WordCounts(num_threads=num_threads, tokenizer=tokenizer, **options)
    if isinstance(source, (str, os.PathLike)) or (
        isinstance(source, (list, tuple))
        and source
        and all(isinstance(p, os.PathLike) for p in source)
    ):
        counts.add_files(source, jsonl_field=jsonl_field)
    elif is_arrow_column(source):
        if jsonl_field is not None:
            raise ValueError("jsonl_field applies to files only")
        counts.add_arrow(source)
    elif isinstance(source, bytes) or not isinstance(source, Iterable):
        raise TypeError(
            f"source must be a path, documents or an Arrow array, got {type(source).__name__}"
        )
    else:
        if jsonl_field is not None:
            raise ValueError("jsonl_field applies to files only")
        counts._count(lambda part: feed_texts(part, source, name="source"))
    return counts
