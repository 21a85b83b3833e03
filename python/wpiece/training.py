"""Training WordPiece vocabularies with the real WordPiece score."""

from __future__ import annotations

import contextlib
import glob
import gzip
import json
import os
import stat
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, BinaryIO, Literal, Optional, Union

from . import _core
from .quality import TextStats
from .tokenizer import BERT_SPECIAL_TOKENS, Tokenizer

__all__ = [
    "CurvePoint",
    "Merge",
    "TrainingRecord",
    "resolve_files",
    "train",
    "train_from_counts",
    "train_from_iterator",
]

PathLike = Union[str, "os.PathLike[str]"]
Files = Union[PathLike, Sequence[PathLike]]

# Documents handed to Rust per call: the GIL is held only to fill this buffer.
_BUFFER_DOCS = 8192


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


def check_input_file(p: Path) -> Path:
    """`p` if it is a regular file; else the error that says what it is.

    >>> check_input_file(Path("/no/such/folder/x.txt"))
    Traceback (most recent call last):
    FileNotFoundError: no such folder: /no/such/folder
    """
    try:
        st = os.stat(p)
    except FileNotFoundError:
        parent = p.parent
        if str(parent) not in ("", ".") and not parent.is_dir():
            raise FileNotFoundError(f"no such folder: {parent}") from None
        raise FileNotFoundError(f"no such file: {p}") from None
    except OSError as e:  # a symlink loop, a name too long, no permission on the folder
        raise type(e)(e.errno, f"{p}: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(f"{p} is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        kinds = {
            stat.S_IFIFO: "a FIFO",
            stat.S_IFCHR: "a character device",
            stat.S_IFBLK: "a block device",
            stat.S_IFSOCK: "a socket",
        }
        what = kinds.get(stat.S_IFMT(st.st_mode), "not a file")
        raise ValueError(f"{p} is not a regular file ({what})")
    return p


def resolve_files(files: Files) -> list[Path]:
    """Expands globs; every path must be a regular file (the error says what
    it is otherwise: missing, a folder, a FIFO or a device).

    >>> import wpiece
    >>> resolve_files(str(wpiece.sample_text_path()))[0].name
    'sample.txt'
    """
    items = [files] if isinstance(files, (str, os.PathLike)) else list(files)
    out: list[Path] = []
    for item in items:
        s = os.fsdecode(os.fspath(item))
        if not s:
            raise ValueError("an input path is empty")
        if glob.has_magic(s):
            matches = sorted(glob.glob(s, recursive=True))
            if not matches:
                raise FileNotFoundError(f"no file matches {s}")
            out.extend(check_input_file(Path(m)) for m in matches)
        else:
            out.append(check_input_file(Path(s)))
    if not out:
        raise ValueError("no input files given")
    return out


def read_lines(source: Union[Path, BinaryIO], name: Optional[str] = None) -> Iterator[str]:
    """Lines of a file (plain or `.gz`) or of a binary stream, without their
    line ends. Bad UTF-8 or broken `.gz` data raise ``ValueError`` naming the
    file (or ``name``, e.g. stdin) and the byte offset.

    >>> import wpiece
    >>> next(read_lines(wpiece.sample_text_path()))[:30]
    'In the beginning God created t'
    """
    label = name or str(source)
    if isinstance(source, Path):
        check_input_file(source)
        raw: BinaryIO = gzip.open(source, "rb") if source.suffix == ".gz" else open(source, "rb")
    else:
        raw = source
    offset = 0
    try:
        with raw if isinstance(source, Path) else contextlib.nullcontext(raw):
            for line in raw:
                try:
                    text = line.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise ValueError(
                        f"{label}: invalid UTF-8 at byte offset {offset + e.start}"
                    ) from None
                offset += len(line)
                if text.endswith("\n"):
                    text = text[:-1].removesuffix("\r")
                yield text
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise ValueError(f"{label}: broken gzip data ({e or 'it ends too soon'})") from None


def _jsonl_texts(path: Path, field_name: str) -> Iterator[str]:
    for n, line in enumerate(read_lines(path), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)[field_name]
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise ValueError(f"{path}:{n}: no string field {field_name!r} ({e})") from None
        if not isinstance(value, str):
            raise ValueError(f"{path}:{n}: field {field_name!r} is not a string")
        yield value


class _Progress:
    """A tqdm bar that exists only when asked for."""

    def __init__(self, enabled: bool, total: Optional[int], desc: str, unit: str) -> None:
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True)

    def update_to(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _counter(options: dict[str, Any], num_threads: Optional[int]) -> _core.WordCounter:
    return _core.WordCounter(
        normalize=options["normalize"],
        lowercase=options["lowercase"],
        strip_accents=options["strip_accents"],
        clean_text=options["clean_text"],
        handle_chinese_chars=options["handle_chinese_chars"],
        pre_tokenizer=options["pre_tokenizer"],
        num_threads=num_threads,
    )


def _check_not_one_str(texts: object) -> None:
    if isinstance(texts, (str, bytes)):
        raise TypeError("expected an iterable of str, got a single str; wrap it in a list")


def feed_texts(
    counter: _core.WordCounter, texts: Iterable[str], bar: Optional[_Progress] = None
) -> None:
    """Counts documents in buffers (the GIL is released while counting)."""
    _check_not_one_str(texts)
    buffer: list[str] = []
    done = 0
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"item {i} of the corpus is {type(t).__name__}, not str")
        buffer.append(t)
        if len(buffer) >= _BUFFER_DOCS:
            counter.add_texts(buffer)
            done += len(buffer)
            if bar is not None:
                bar.update_to(done)
            buffer = []
    if buffer:
        counter.add_texts(buffer)
        if bar is not None:
            bar.update_to(done + len(buffer))


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
    points = [TextStats._from_tuple(t) for t in counter.measure(tok._core, sizes)]
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


def _merge_score(score: str, m: tuple[Any, ...]) -> float:
    if score == "likelihood":
        return float(m[8])
    if score == "wordpiece":
        return float(Fraction(m[3], m[4] * m[5]))
    return float(m[3])


def _train(
    counter: _core.WordCounter,
    vocab_size: int,
    options: dict[str, Any],
    *,
    min_frequency: int,
    special_tokens: Sequence[str],
    limit_alphabet: Optional[int],
    initial_alphabet: Iterable[str],
    continuing_subword_prefix: str,
    end_of_word_suffix: str,
    score: str,
    unk_token: str,
    unknown: str,
    show_progress: bool,
) -> Tokenizer:
    if vocab_size < 1:
        raise ValueError("vocab_size must be positive")
    if min_frequency < 0:
        raise ValueError("min_frequency must be >= 0")
    if limit_alphabet is not None and limit_alphabet < 0:
        raise ValueError("limit_alphabet must be >= 0")
    alphabet = list(initial_alphabet)
    for ch in alphabet:
        if not isinstance(ch, str) or len(ch) != 1:
            raise ValueError(f"initial_alphabet holds single characters, got {ch!r}")
    if unk_token not in special_tokens:
        raise ValueError(f"unk_token {unk_token!r} must be one of special_tokens")
    if len(counter) == 0:
        raise ValueError("the corpus has no words to train on")
    bar = _Progress(show_progress, vocab_size, "merging", "tok")
    try:
        vocab, merges, alphabet_size, initial_tokens, total_words = counter.train(
            vocab_size=vocab_size,
            min_frequency=min_frequency,
            special_tokens=list(special_tokens),
            limit_alphabet=limit_alphabet,
            initial_alphabet=alphabet,
            continuing_subword_prefix=continuing_subword_prefix,
            end_of_word_suffix=end_of_word_suffix,
            score=score,
            progress=(lambda done, n: bar.update_to(n)) if show_progress else None,
        )
        bar.update_to(len(vocab))
    finally:
        bar.close()

    record = TrainingRecord(
        score=score,
        vocab_size=len(vocab),
        base_vocab_size=len(set(special_tokens)) + alphabet_size,
        initial_tokens=initial_tokens,
        total_words=total_words,
        merges=[
            Merge(
                left=m[0],
                right=m[1],
                merged=m[2],
                pair_frequency=m[3],
                left_frequency=m[4],
                right_frequency=m[5],
                tokens_after=m[6],
                added=m[7],
                score=_merge_score(score, m),
                gain=m[8],
            )
            for m in merges
        ],
    )
    if record.base_vocab_size > vocab_size:
        import warnings

        warnings.warn(
            f"vocab_size {vocab_size} is smaller than the special tokens plus the alphabet "
            f"({record.base_vocab_size}); the vocabulary keeps all of them and has no merges",
            stacklevel=3,
        )
    tok = Tokenizer(
        vocab,
        unk_token=unk_token,
        unknown=unknown,  # type: ignore[arg-type]
        continuing_subword_prefix=continuing_subword_prefix,
        end_of_word_suffix=end_of_word_suffix,
        special_tokens=list(special_tokens),
        **options,
    )
    tok.training_record = record
    _warn_if_hapax_merges(record)
    return tok


# The training functions pass these on by name.
_NORMALIZER_ARGS = (
    "normalize",
    "lowercase",
    "strip_accents",
    "clean_text",
    "handle_chinese_chars",
    "pre_tokenizer",
)
_MODEL_ARGS = (
    "min_frequency",
    "special_tokens",
    "limit_alphabet",
    "initial_alphabet",
    "continuing_subword_prefix",
    "end_of_word_suffix",
    "score",
    "unk_token",
    "unknown",
    "show_progress",
)


def _options(
    normalize: bool,
    lowercase: bool,
    strip_accents: Optional[bool],
    clean_text: bool,
    handle_chinese_chars: bool,
    pre_tokenizer: str,
) -> dict[str, Any]:
    if pre_tokenizer not in ("bert", "whitespace"):
        raise ValueError(f"pre_tokenizer must be 'bert' or 'whitespace', got {pre_tokenizer!r}")
    return {
        "normalize": normalize,
        "lowercase": lowercase,
        "strip_accents": strip_accents,
        "clean_text": clean_text,
        "handle_chinese_chars": handle_chinese_chars,
        "pre_tokenizer": pre_tokenizer,
    }


def train(
    files: Files,
    vocab_size: int = 30000,
    *,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS,
    limit_alphabet: Optional[int] = None,
    initial_alphabet: Iterable[str] = (),
    continuing_subword_prefix: str = "##",
    end_of_word_suffix: str = "",
    unk_token: str = "[UNK]",
    unknown: Literal["word", "char"] = "word",
    normalize: bool = True,
    lowercase: bool = True,
    strip_accents: Optional[bool] = None,
    clean_text: bool = True,
    handle_chinese_chars: bool = True,
    pre_tokenizer: Literal["bert", "whitespace"] = "bert",
    score: Literal["likelihood", "wordpiece", "frequency"] = "likelihood",
    jsonl_field: Optional[str] = None,
    held_out: float = 0.0,
    show_progress: bool = False,
    num_threads: Optional[int] = None,
) -> Tokenizer:
    """Trains a WordPiece vocabulary on text files and returns a ready :class:`Tokenizer`.

    ``files``: a path, a glob, or a list of them; plain text or ``.gz``, one
    document per line (``.jsonl`` files with ``jsonl_field`` set). Words are
    counted in parallel with the same normalizer and pre-tokenizer the tokenizer
    then encodes with. ``tok.training_record`` holds every merge and the
    compression curve. Invalid UTF-8 raises ``ValueError`` naming the file and
    byte offset.

    ``score``: ``"likelihood"`` (default) merges the pair that most raises the
    likelihood of the corpus under a unigram model of the units (Schuster &
    Nakajima 2012): frequent, strongly associated pairs first.
    ``"wordpiece"`` is the textbook score p/(f(x)·f(y)) of the HF course,
    which favours pairs seen once; ``"frequency"`` is BPE's.

    ``held_out``: a fraction of documents (spread evenly) kept out of training;
    ``tok.training_record.held_out`` then shows how the vocabulary, cut to
    growing sizes, encodes them.

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
    args = dict(locals())
    options = _options(**{k: args[k] for k in _NORMALIZER_ARGS})
    fraction = _check_held_out(held_out)
    paths = resolve_files(files)
    counter = _counter(options, num_threads)
    held: list[str] = []
    bar = _Progress(show_progress, len(paths), "counting", "file")
    try:
        for i, p in enumerate(paths):
            if jsonl_field is not None:
                texts: Iterable[str] = _jsonl_texts(p, jsonl_field)
            elif fraction:
                texts = read_lines(p)
            else:
                counter.add_file(p)
                bar.update_to(i + 1)
                continue
            if fraction:
                texts = _split_documents(texts, fraction, held)
            feed_texts(counter, texts)
            bar.update_to(i + 1)
    finally:
        bar.close()
    tok = _train(counter, vocab_size, options, **{k: args[k] for k in _MODEL_ARGS})
    if fraction:
        _measure_held_out(tok, held, fraction, num_threads)
    return tok


def train_from_iterator(
    texts: Iterable[str],
    vocab_size: int = 30000,
    *,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS,
    limit_alphabet: Optional[int] = None,
    initial_alphabet: Iterable[str] = (),
    continuing_subword_prefix: str = "##",
    end_of_word_suffix: str = "",
    unk_token: str = "[UNK]",
    unknown: Literal["word", "char"] = "word",
    normalize: bool = True,
    lowercase: bool = True,
    strip_accents: Optional[bool] = None,
    clean_text: bool = True,
    handle_chinese_chars: bool = True,
    pre_tokenizer: Literal["bert", "whitespace"] = "bert",
    score: Literal["likelihood", "wordpiece", "frequency"] = "likelihood",
    held_out: float = 0.0,
    show_progress: bool = False,
    num_threads: Optional[int] = None,
) -> Tokenizer:
    """Trains on any iterable of ``str`` documents (buffered; counting runs without the GIL).

    >>> import wpiece
    >>> corpus = ["This is the Hugging Face Course.", "This chapter is about tokenization.",
    ...     "This section shows several tokenizer algorithms.",
    ...     "Hopefully, you will be able to understand how they are trained and generate tokens."]
    >>> tok = wpiece.train_from_iterator(corpus, vocab_size=70, lowercase=False,
    ...     score="wordpiece")  # the HF course's vocabulary
    >>> tok.tokenize("Hugging")
    ['Hugg', '##i', '##n', '##g']
    """
    args = dict(locals())
    options = _options(**{k: args[k] for k in _NORMALIZER_ARGS})
    fraction = _check_held_out(held_out)
    counter = _counter(options, num_threads)
    held: list[str] = []
    bar = _Progress(show_progress, None, "counting", "doc")
    try:
        _check_not_one_str(texts)  # before a held-out split hides it in a generator
        feed_texts(counter, _split_documents(texts, fraction, held) if fraction else texts, bar)
    finally:
        bar.close()
    tok = _train(counter, vocab_size, options, **{k: args[k] for k in _MODEL_ARGS})
    if fraction:
        _measure_held_out(tok, held, fraction, num_threads)
    return tok


def train_from_counts(
    counts: Union[Mapping[str, int], Iterable[tuple[str, int]]],
    vocab_size: int = 30000,
    *,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS,
    limit_alphabet: Optional[int] = None,
    initial_alphabet: Iterable[str] = (),
    continuing_subword_prefix: str = "##",
    end_of_word_suffix: str = "",
    unk_token: str = "[UNK]",
    unknown: Literal["word", "char"] = "word",
    normalize: bool = True,
    lowercase: bool = True,
    strip_accents: Optional[bool] = None,
    clean_text: bool = True,
    handle_chinese_chars: bool = True,
    pre_tokenizer: Literal["bert", "whitespace"] = "bert",
    score: Literal["likelihood", "wordpiece", "frequency"] = "likelihood",
    show_progress: bool = False,
) -> Tokenizer:
    """Trains on ready word counts, taken as words as they are (their order is
    the first-appearance order used to break ties; an ``end_of_word_suffix`` is
    appended to each). The normalizer options only configure the returned
    tokenizer.

    >>> import wpiece
    >>> counts = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    >>> tok = wpiece.train_from_counts(counts, 22, score="frequency",
    ...     continuing_subword_prefix="", end_of_word_suffix="_", special_tokens=["[UNK]"])
    >>> tok.tokenize("slowest")
    ['s', 'low', 'est_']
    >>> tok.decode(tok.encode("slow newest").ids)
    'slow newest'

    """
    args = dict(locals())
    options = _options(**{k: args[k] for k in _NORMALIZER_ARGS})
    items = list(counts.items()) if isinstance(counts, Mapping) else list(counts)
    for w, c in items:
        if not isinstance(w, str) or not isinstance(c, int) or isinstance(c, bool) or c < 0:
            raise TypeError(f"counts must map str to a non-negative int, got {w!r}: {c!r}")
    counter = _counter(options, None)
    counter.add_counts(items)
    return _train(counter, vocab_size, options, **{k: args[k] for k in _MODEL_ARGS})
