"""The `wpiece` command line (also `python -m wpiece`).

Why this file is long: six subcommands (train, encode, decode, stats, bench,
demo), each an argparse definition with its help text and a short handler
that calls the library; exit codes are shared here, output checks and atomic
outputs in `_cli_checks` and `_cli_outputs`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Optional, TextIO, Union

from . import Tokenizer, persistence, sample_text_path, sample_vocab_path
from ._cli_checks import (
    TRAIN_OUTPUTS,
    CliError,
    check_output_file,
    check_output_folder,
    input_files,
    refuse_overwriting,
    tokenizer_files,
)
from ._cli_outputs import WRITTEN, atomic_output
from .documents import FieldRequiredError, check_input_file, is_jsonl, read_documents
from .training import train, train_from_iterator
from .training_options import PRE_TOKENIZERS, SCORES, UNKNOWN_MODES, TrainingOptions

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

EPILOG = """examples:
  wpiece demo
  wpiece train corpus/*.txt.gz --vocab-size 30000 -o my-tokenizer --report
  wpiece train data.jsonl --field text --vocab-size 8000 -o tok
  cat corpus.txt | wpiece train - --vocab-size 8000 -o tok
  wpiece encode --tokenizer tok corpus.txt -o ids.jsonl
  wpiece encode --tokenizer tok corpus.txt -o ids.npy
  wpiece decode --tokenizer tok ids.jsonl
  wpiece stats --tokenizer tok --tokenizer bert-vocab.txt corpus.txt
  wpiece bench --corpus corpus.txt
"""


def _progress_wanted(args: argparse.Namespace) -> bool:
    if args.progress is not None:
        return bool(args.progress)
    return sys.stderr.isatty()


# The training options the parser's defaults come from.
_DEFAULTS = TrainingOptions()


def _needs_field(path: Path, has_field: bool = True) -> CliError:
    if not has_field:
        return CliError(f"{path}: JSON Lines input is not read here: give a text file")
    return CliError(f"{path}: give --field for JSON Lines input")


def _read_docs(
    sources: Sequence[str], field: Optional[str], has_field: bool = True
) -> Iterator[str]:
    """Documents (one per line) from files, globs, `.gz`, `.jsonl` or `-` (stdin),
    as :func:`wpiece.documents.read_documents` reads them; `has_field`: whether
    the command has a --field option (demo and bench do not)."""
    try:
        yield from read_documents(sources, field)
    except FieldRequiredError as e:
        raise _needs_field(e.path, has_field) from None


def _load(path: str, lowercase: Optional[bool] = None) -> Tokenizer:
    options = {} if lowercase is None else {"lowercase": lowercase}
    tok = Tokenizer.from_file(path, **options)
    tok.no_padding()
    tok.no_truncation()
    return tok


# ----- train -------------------------------------------------------------------


def _fraction(text: str) -> float:
    """`1%` or `0.01` as 0.01; refuses anything outside [0, 1)."""
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a fraction or percentage: {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 0 and below 100%: {text!r}")
    return value


# Flags that set what a tokenizer given to --extend fixes: (flag, attribute).
_PIPELINE_FLAGS = (
    ("--special-tokens", "special_tokens"),
    ("--unk-token", "unk_token"),
    ("--unknown", "unknown"),
    ("--prefix", "prefix"),
    ("--suffix", "suffix"),
    ("--cased", "cased"),
    ("--pre-tokenizer", "pre_tokenizer"),
)


def _through_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of `train --extend` or `train --pipeline`: the pipeline's
    are the tokenizer's."""
    flag, given = (
        ("--extend", args.extend) if args.extend is not None else ("--pipeline", args.pipeline)
    )
    if args.extend is not None and args.pipeline is not None:
        raise CliError("give --extend (a tokenizer to extend) or --pipeline, not both")
    for option, name in _PIPELINE_FLAGS:
        if getattr(args, name) != args.train_defaults[name]:
            raise CliError(f"{option} comes from the tokenizer given to {flag}")
    return {
        "vocab_size": args.vocab_size,
        "min_frequency": args.min_frequency,
        "limit_alphabet": args.limit_alphabet,
        "score": args.score,
        "fit": args.fit,
        "show_progress": _progress_wanted(args),
        "initial" if args.extend is not None else "tokenizer": Tokenizer.from_file(given),
    }


def _train(args: argparse.Namespace) -> int:
    if args.extend is not None or args.pipeline is not None:
        return _train_with(args, _through_options(args))
    given = args.special_tokens
    specials = (
        list(_DEFAULTS.special_tokens) if given is None else [t for t in given.split(",") if t]
    )
    if args.unk_token not in specials:
        specials.insert(0, args.unk_token)
    options = TrainingOptions(
        vocab_size=args.vocab_size,
        min_frequency=args.min_frequency,
        special_tokens=specials,
        limit_alphabet=args.limit_alphabet,
        continuing_subword_prefix=args.prefix,
        end_of_word_suffix=args.suffix,
        unk_token=args.unk_token,
        unknown=args.unknown,
        lowercase=not args.cased,
        pre_tokenizer=args.pre_tokenizer,
        score=args.score,
        fit=args.fit,
        show_progress=_progress_wanted(args),
    ).to_dict()
    return _train_with(args, options)


def _train_with(args: argparse.Namespace, options: dict[str, Any]) -> int:
    """Trains with `options`, writes the tokenizer folder and says what it did."""
    check_output_folder(args.output)
    out = Path(args.output)
    corpus_files = input_files(args.corpus)
    # The --extend/--pipeline tokenizer may be the output (updated in place:
    # it is read whole before the new set replaces it); a corpus file may not.
    reads = [("input", p) for p in corpus_files]
    refuse_overwriting([out / name for name in TRAIN_OUTPUTS], reads)
    if args.report:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise CliError("--report needs matplotlib: pip install 'wpiece[report]'") from None
    start = time.perf_counter()
    reading = {"held_out": args.held_out, "num_threads": args.threads}
    if "-" in args.corpus or args.field is not None:
        tok = train_from_iterator(_read_docs(args.corpus, args.field), **reading, **options)
    else:  # files read and counted in Rust
        jsonl = next((p for p in corpus_files if is_jsonl(p)), None)
        if jsonl is not None:
            raise _needs_field(jsonl)
        tok = train(args.corpus, **reading, **options)
    seconds = time.perf_counter() - start
    report: list[tuple[str, bytes]] = []
    if args.report:
        from .report import report_files

        # Drawn before the save, and saved with the tokenizer as one set: a
        # Ctrl-C while drawing leaves the old set whole, its report included.
        report = report_files(tok)
    # Without --report, an older report in the folder is removed as stale.
    persistence.save_tokenizer(tok, out, report)
    WRITTEN.append(str(out))
    record = tok.training_record
    assert record is not None
    curve = record.tokens_per_word()
    print(f"trained {len(tok):,} tokens ({record.score} score) in {seconds:.1f} s")
    if record.extended_from:
        print(
            f"extended {args.extend}: its {record.extended_from:,} ids kept, "
            f"{record.added_ids:,} added after them "
            f"(model.resize_token_embeddings({len(tok)}) makes room for them)"
        )
    print(f"corpus: {record.total_words:,} words")
    fitted = record.fitted_tokens_per_word()
    print(
        f"training splits: {curve[0][1]:.3f} tokens/word with the alphabet "
        f"({curve[0][0]:,} tokens) -> {curve[-1][1]:.3f} tokens/word at {curve[-1][0]:,}"
        + ("" if fitted is None else " (the merges, grown past the size to fit)")
    )
    if fitted is not None:
        print(f"fitted: {fitted:.3f} tokens/word by longest match at {len(tok):,} tokens")
    if record.held_out:
        last = record.held_out[-1]
        print(
            f"held out ({100 * record.held_out_fraction:g}% of documents, "
            f"{record.held_out_words:,} words): {last.tokens_per_word:.3f} tokens/word, "
            f"{100 * last.whole_word_rate:.1f}% of words whole, "
            f"{100 * last.unknown_rate:.3f}% unknown"
        )
    written = [n for n in TRAIN_OUTPUTS if (out / n).exists()]
    print(f"wrote {', '.join(sorted(written))} to {out}")
    return 0


# ----- encode / decode ----------------------------------------------------------


def _encode(args: argparse.Namespace) -> int:
    out_path = args.output
    named_npy = bool(out_path) and out_path.lower().endswith(".npy")
    fmt = args.format or ("npy" if named_npy else "jsonl")
    if fmt == "npy" and not named_npy:
        # The pair is BASE.npy and BASE.rows.npy: any other name was given
        # .npy behind it, writing files the user never named.
        raise CliError("--format npy needs -o FILE.npy (it writes FILE.npy and FILE.rows.npy)")
    if fmt == "jsonl" and named_npy:
        raise CliError(f"--format jsonl with -o {out_path}: give a name not ending in .npy")
    if out_path is not None:
        check_output_file(out_path)
        reads = [("input", p) for p in input_files(args.input)]
        reads += [("tokenizer", p) for p in tokenizer_files(args.tokenizer)]
        refuse_overwriting(_encode_outputs(out_path, fmt), reads)
    tok = _load(args.tokenizer)
    docs = list(_read_docs(args.input, args.field))
    chunk = 65536
    all_ids: list[npt.NDArray[np.uint32]] = []
    all_rows = [0]
    with contextlib.ExitStack() as stack:
        out = (
            stack.enter_context(atomic_output(out_path))
            if out_path and fmt == "jsonl"
            else sys.stdout
        )
        _encode_chunks(tok, docs, args, fmt, out, all_ids, all_rows, chunk)
    if fmt == "npy":
        import numpy as np

        from . import _core

        target = Path(out_path)
        ids_path, rows_path = _encode_outputs(out_path, fmt)
        ids_arr = np.concatenate(all_ids) if all_ids else np.zeros(0, dtype=np.uint32)
        files = [
            (rows_path.name, _npy_bytes(np.asarray(all_rows, dtype=np.int64))),
            (ids_path.name, _npy_bytes(ids_arr)),
        ]
        _core.write_set_atomic(target.parent if str(target.parent) else Path("."), files, [])
        WRITTEN.append(f"{ids_path} and {rows_path}")
        print(
            f"wrote {ids_arr.size:,} ids of {len(docs):,} documents to "
            f"{ids_path} (row offsets in {rows_path.name})",
            file=sys.stderr,
        )
    return 0


def _encode_outputs(out_path: str, fmt: str) -> list[Path]:
    """The files `encode -o out_path` writes: the file named, and for
    `.npy` (any case) its row offsets beside it, BASE.rows.npy."""
    target = Path(out_path)
    if fmt != "npy":
        return [target]
    suffix = target.name[-len(".npy") :]
    return [target, target.with_name(f"{target.name[: -len(suffix)]}.rows{suffix}")]


def _encode_chunks(
    tok: Tokenizer,
    docs: Sequence[str],
    args: argparse.Namespace,
    fmt: str,
    out: IO[str],
    all_ids: list[npt.NDArray[np.uint32]],
    all_rows: list[int],
    chunk: int,
) -> None:
    bar = None
    if _progress_wanted(args):
        from tqdm.auto import tqdm

        bar = tqdm(total=len(docs), desc="encoding", unit="doc")
    try:
        for i in range(0, len(docs), chunk):
            part = docs[i : i + chunk]
            ids, rows = tok.encode_batch_flat(part, add_special_tokens=not args.no_special_tokens)
            if fmt == "jsonl":
                for k in range(len(part)):
                    out.write(json.dumps(ids[rows[k] : rows[k + 1]].tolist()) + "\n")
            else:
                all_ids.append(ids)
                base = all_rows[-1]
                all_rows.extend((rows[1:] + base).tolist())
            if bar is not None:
                bar.update(len(part))
    finally:
        if bar is not None:
            bar.close()


def _npy_bytes(array: npt.NDArray[Any]) -> bytes:
    import io

    import numpy as np

    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


_ID = re.compile(r"-?[0-9]+")


def _id(text: str) -> int:
    """An id of a space-separated line: ASCII digits, maybe a minus (int()
    alone takes 1_000 and other scripts' digits)."""
    if not _ID.fullmatch(text):
        raise ValueError(f"not an id: {text!r}")
    return int(text)


def _decode(args: argparse.Namespace) -> int:
    if args.input not in (None, "-"):
        # As encode and train do: /dev/zero or a FIFO would be read forever.
        check_input_file(Path(args.input))
    tok = _load(args.tokenizer)
    source = open(args.input, encoding="utf-8") if args.input not in (None, "-") else sys.stdin
    try:
        for n, line in enumerate(source, 1):
            line = line.strip()
            if not line:
                continue
            try:
                ids = json.loads(line) if line.startswith("[") else [_id(x) for x in line.split()]
            except ValueError as e:
                raise CliError(
                    f"line {n}: expected a JSON list of ids or ids separated by spaces"
                ) from e
            if not isinstance(ids, list):
                raise CliError(f"line {n}: expected a JSON list of ids")
            try:
                text = tok.decode(ids, skip_special_tokens=not args.keep_special_tokens)
            except (TypeError, OverflowError) as e:
                raise CliError(f"line {n}: {e}") from None
            print(text)
    finally:
        if source is not sys.stdin:
            source.close()
    return 0


# ----- stats --------------------------------------------------------------------


def corpus_stats(tok: Tokenizer, docs: Sequence[str], top: int = 10) -> dict[str, Any]:
    """Tokens per word, characters per token, words kept whole and unknown
    words (``Tokenizer.stats``: words as the tokenizer splits them), share of
    the vocab used, longest and most frequent tokens of ``tok`` on ``docs``."""
    ids, _ = tok.encode_batch_flat(docs, add_special_tokens=False)
    stats = tok.stats(docs)
    counts = Counter(ids.tolist())
    vocab = tok.get_vocab()
    return {
        **stats.to_dict(),
        "vocab_used": len(counts) / len(vocab),
        "longest_tokens": sorted(vocab, key=len, reverse=True)[:top],
        "most_frequent": [(tok.id_to_token(i), c) for i, c in counts.most_common(top)],
    }


def _stats(args: argparse.Namespace) -> int:
    docs = list(_read_docs(args.corpus, args.field))
    names = args.tokenizer
    twice = next((n for k, n in enumerate(names) if n in names[:k]), None)
    if twice is not None:  # --json keys results by name: one would be lost
        raise CliError(f"--tokenizer {twice} is given twice")
    results = [corpus_stats(_load(t), docs, args.top) for t in names]
    if args.json:
        print(json.dumps(dict(zip(names, results)), ensure_ascii=False, indent=1))
        return 0
    width = max(18, *(len(n) for n in names))
    print(f"{'':24}" + "".join(f"{n:>{width}}" for n in names))
    rows: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
        ("words", lambda r: f"{r['words']:,}"),
        ("tokens", lambda r: f"{r['tokens']:,}"),
        ("tokens / word", lambda r: f"{r['tokens_per_word']:.3f}"),
        ("characters / token", lambda r: f"{r['chars_per_token']:.3f}"),
        ("words kept whole", lambda r: f"{100 * r['whole_word_rate']:.1f}%"),
        ("unknown words", lambda r: f"{100 * r['unknown_rate']:.3f}%"),
        ("vocab used", lambda r: f"{100 * r['vocab_used']:.1f}%"),
    ]
    for label, fmt in rows:
        print(f"{label:24}" + "".join(f"{fmt(r):>{width}}" for r in results))
    for name, r in zip(names, results):
        print(f"\n{name}")
        print("  longest tokens: " + " ".join(r["longest_tokens"]))
        freq = r["most_frequent"]
        print("  most frequent:  " + " ".join(f"{t}:{c}" for t, c in freq))
    return 0


# ----- bench --------------------------------------------------------------------


def _no_empty_paths(args: argparse.Namespace) -> None:
    """An empty --corpus or --vocab (an unset $VAR) is refused, not taken
    for the bundled sample."""
    for option in ("corpus", "vocab"):
        if getattr(args, option) == "":
            raise CliError(f"the --{option} path is empty")


def _bench(args: argparse.Namespace) -> int:
    """Encode and train timings of wpiece and the installed peers, in this process."""
    _no_empty_paths(args)
    path = Path(args.corpus or sample_text_path())
    docs = list(_read_docs([str(path)], None, has_field=False))
    nbytes = sum(len(d.encode()) for d in docs)
    vocab = str(args.vocab or sample_vocab_path())
    rows: list[tuple[str, str, tuple[float, float]]] = []

    def timed(fn: Callable[[], object]) -> tuple[float, float]:
        """(first call, best of the repeats after it): the first call meets text
        the engine has not seen, the later ones repeat it with every cache warm."""
        t = time.perf_counter()
        fn()
        first = time.perf_counter() - t
        best = float("inf")
        for _ in range(args.repeats):
            t = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t)
        return first, best

    tok = Tokenizer.from_file(vocab)
    rows.append(("encode", "wpiece", timed(lambda: tok.encode_batch_flat(docs))))
    try:
        from tokenizers import BertWordPieceTokenizer

        hf = BertWordPieceTokenizer(vocab)
        rows.append(("encode", "HF tokenizers", timed(lambda: hf.encode_batch(docs))))
    except ImportError:
        pass
    try:
        import nanotoken

        nt = nanotoken.Tokenizer.from_vocab(vocab)
        rows.append(("encode", "nanotoken", timed(lambda: nt.encode_batch(docs))))
    except ImportError:
        pass
    size = args.vocab_size
    rows.append(("train", "wpiece", timed(lambda: train(path, size))))
    try:
        from tokenizers import Tokenizer as HFTok
        from tokenizers import models, normalizers, pre_tokenizers, trainers

        def hf_train() -> None:
            t = HFTok(models.WordPiece(unk_token="[UNK]"))
            t.normalizer = normalizers.BertNormalizer(lowercase=True)
            t.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
            trainer = trainers.WordPieceTrainer(
                vocab_size=size, special_tokens=list(_DEFAULTS.special_tokens), show_progress=False
            )
            t.train([str(path)], trainer)

        rows.append(("train", "HF tokenizers", timed(hf_train)))
    except ImportError:
        pass
    print(f"corpus: {path} ({nbytes / 1e6:.1f} MB, {len(docs):,} documents)")
    print("one pass: the first call, on text the engine has not seen (what a dataset costs);")
    print(f"repeated: best of {args.repeats} more calls on the same text (every cache warm)")
    print(f"{'job':8}{'engine':16}{'one pass s':>12}{'MB/s':>8}{'repeated s':>12}{'MB/s':>8}")
    for job, engine, (first, best) in rows:
        print(
            f"{job:8}{engine:16}{first:>12.3f}{nbytes / first / 1e6:>8.1f}"
            f"{best:>12.3f}{nbytes / best / 1e6:>8.1f}"
        )
    print("For process-isolated medians and peak memory: benches/bench_encode.py, bench_train.py")
    return 0


# ----- demo ---------------------------------------------------------------------


def _demo(args: argparse.Namespace) -> int:
    """Loads the bundled vocab, encodes the bundled sample, prints a summary;
    then trains a small vocabulary on the same sample."""
    _no_empty_paths(args)
    if args.corpus == "-":  # read twice (to encode, to train): stdin cannot be
        raise CliError("demo needs a file for --corpus, not - (stdin)")
    tok = Tokenizer.from_file(args.vocab or sample_vocab_path())
    path = args.corpus or sample_text_path()
    docs = [d for d in _read_docs([str(path)], None, has_field=False) if d.strip()]
    if len(docs) < 2:
        raise CliError(f"{path}: the demo needs at least two non-empty lines")
    first = tok.encode(docs[0])
    print(f"tokenizer: {tok!r}")
    print(f"text:   {docs[0]}")
    print(f"tokens: {first.tokens}")
    print(f"ids:    {first.ids}")
    start = time.perf_counter()
    stats = corpus_stats(tok, docs, top=8)
    seconds = time.perf_counter() - start
    print(f"documents: {len(docs)}, tokens: {stats['tokens']:,}")
    print(
        f"chars/token: {stats['chars_per_token']:.2f}, tokens/word: {stats['tokens_per_word']:.3f}"
    )
    print(
        f"words kept whole: {stats['whole_word_rate']:.1%}, unknown words: "
        f"{stats['unknown_rate']:.4%}, vocab used: {stats['vocab_used']:.1%}"
    )
    freq = stats["most_frequent"]
    print("most frequent: " + ", ".join(f"{t}:{c}" for t, c in freq))
    print(f"encode + stats time: {seconds * 1000:.1f} ms")
    trained = train(path, 2000, held_out=0.05)
    record = trained.training_record
    assert record is not None
    held = record.held_out_tokens_per_word()
    print(
        f"trained a {len(trained):,}-token WordPiece vocab ({record.score} score) on 95% of "
        f"the sample; on the other 5%: {held[0][1]:.2f} -> {held[-1][1]:.2f} tokens/word; "
        f"'{docs[1][:40]}' -> {trained.tokenize(docs[1][:40])}"
    )
    return 0


# ----- parser -------------------------------------------------------------------


def _at_least(lowest: int) -> Callable[[str], int]:
    """An argparse type: an int no smaller than `lowest` (a negative --top
    sliced the list from its end; --repeats 0 timed nothing)."""

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if n < lowest:
            raise argparse.ArgumentTypeError(f"must be at least {lowest}, got {n}")
        return n

    return parse


def _thread_count(text: str) -> int:
    n = int(text)
    if not 1 <= n <= 1024:
        raise argparse.ArgumentTypeError(f"must be from 1 to 1024, got {n}")
    return n


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wpiece",
        description="WordPiece tokenizer: train vocabularies, encode and decode text.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def progress_flags(p: argparse.ArgumentParser) -> None:
        g = p.add_mutually_exclusive_group()
        g.add_argument(
            "--progress",
            dest="progress",
            action="store_true",
            default=None,
            help="show progress bars (default: only on a terminal)",
        )
        g.add_argument("--no-progress", dest="progress", action="store_false")

    t = sub.add_parser(
        "train",
        help="train a WordPiece vocabulary",
        epilog="example: wpiece train corpus.txt --vocab-size 30000 -o tok --report",
    )
    t.add_argument("corpus", nargs="+", help="files, globs, .gz, .jsonl (with --field), or -")
    t.add_argument("--vocab-size", type=int, required=True)
    t.add_argument("-o", "--output", required=True, help="output folder")
    t.add_argument("--field", help="JSON field holding the text, for .jsonl input")
    t.add_argument("--min-frequency", type=int, default=_DEFAULTS.min_frequency)
    t.add_argument("--limit-alphabet", type=int, default=_DEFAULTS.limit_alphabet)
    t.add_argument(
        "--special-tokens",
        help=f"comma-separated (default: {','.join(_DEFAULTS.special_tokens)}; "
        "'' for the unknown token alone)",
    )
    t.add_argument("--unk-token", default=_DEFAULTS.unk_token)
    t.add_argument(
        "--unknown",
        choices=UNKNOWN_MODES,
        default=_DEFAULTS.unknown,
        help="a word with an unknown character becomes one unk (word), or one unk per unknown "
        "character (char)",
    )
    t.add_argument(
        "--prefix",
        default=_DEFAULTS.continuing_subword_prefix,
        help="continuing-subword prefix (may be empty)",
    )
    t.add_argument(
        "--suffix",
        default=_DEFAULTS.end_of_word_suffix,
        help="end-of-word suffix, e.g. _ (D2L style)",
    )
    t.add_argument("--cased", action="store_true", help="do not lowercase")
    t.add_argument("--pre-tokenizer", choices=PRE_TOKENIZERS, default=_DEFAULTS.pre_tokenizer)
    t.add_argument(
        "--score",
        choices=SCORES,
        default=_DEFAULTS.score,
        help="likelihood (default): the gain in corpus likelihood, frequent and associated "
        "pairs first; wordpiece: the textbook p/(f(x)f(y)); frequency: BPE's",
    )
    t.add_argument(
        "--fit",
        action="store_true",
        help="fit the vocabulary to longest-match encoding: train to twice the size, remove "
        "the tokens the encoder needs least, then join the pairs it uses most and remove "
        "again (fewer tokens per word, a few times the time)",
    )
    t.add_argument(
        "--held-out",
        type=_fraction,
        default=0.0,
        help="share of documents kept out of training and encoded to measure the "
        "vocabulary, e.g. 1%% or 0.01",
    )
    t.add_argument("--threads", type=_thread_count)
    t.add_argument("--report", action="store_true", help="also write report.png and report.html")
    t.add_argument(
        "--pipeline",
        metavar="TOKENIZER",
        help="train a new vocabulary through this tokenizer's normalizers, pre-tokenizers and "
        "added tokens (folder, vocab.txt or tokenizer.json); the result is that pipeline over it",
    )
    t.add_argument(
        "--extend",
        metavar="TOKENIZER",
        help="extend this tokenizer (folder, vocab.txt or tokenizer.json): its tokens keep "
        "their ids, its pipeline splits the corpus, new tokens come after",
    )
    progress_flags(t)
    pipeline_defaults = {name: t.get_default(name) for _, name in _PIPELINE_FLAGS}
    t.set_defaults(func=_train, train_defaults=pipeline_defaults)

    e = sub.add_parser(
        "encode",
        help="encode text files to ids",
        epilog="example: wpiece encode --tokenizer tok corpus.txt -o ids.npy",
    )
    e.add_argument("input", nargs="+", help="files, globs, .gz, .jsonl (with --field), or -")
    e.add_argument("--tokenizer", required=True, help="folder, vocab.txt or tokenizer.json")
    e.add_argument("-o", "--output", help="output file (default: stdout, JSONL)")
    e.add_argument("--format", choices=["jsonl", "npy"], help="default: from the output name")
    e.add_argument("--field", help="JSON field holding the text, for .jsonl input")
    e.add_argument("--no-special-tokens", action="store_true")
    progress_flags(e)
    e.set_defaults(func=_encode)

    d = sub.add_parser(
        "decode",
        help="decode ids (JSONL lists or space-separated) to text",
        epilog="example: wpiece decode --tokenizer tok ids.jsonl",
    )
    d.add_argument("input", nargs="?", help="file of ids, one document per line (default: stdin)")
    d.add_argument("--tokenizer", required=True)
    d.add_argument("--keep-special-tokens", action="store_true")
    d.set_defaults(func=_decode)

    s = sub.add_parser(
        "stats",
        help="compare tokenizers on a corpus",
        epilog="example: wpiece stats --tokenizer a --tokenizer b corpus.txt",
    )
    s.add_argument("corpus", nargs="+")
    s.add_argument("--tokenizer", action="append", required=True, help="give twice to compare")
    s.add_argument("--field")
    s.add_argument("--top", type=_at_least(0), default=10)
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=_stats)

    b = sub.add_parser("bench", help="time encoding and training against installed peers")
    b.add_argument("--corpus", help="text file (default: the bundled sample)")
    b.add_argument("--vocab", help="vocab for encoding (default: bundled BERT vocab)")
    b.add_argument("--vocab-size", type=int, default=2000)
    b.add_argument("--repeats", type=_at_least(1), default=3)
    b.set_defaults(func=_bench)

    m = sub.add_parser("demo", help="encode the bundled sample corpus and print stats")
    m.add_argument("--vocab", help="vocab.txt or tokenizer.json (default: bundled BERT vocab)")
    m.add_argument("--corpus", help="text file, one document per line (default: bundled)")
    m.set_defaults(func=_demo)
    return parser


def _show_warning(
    message: Union[Warning, str],
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Optional[TextIO] = None,
    line: Optional[str] = None,
) -> None:
    """Warnings as one line, like the errors."""
    print(f"wpiece: warning: {message}", file=sys.stderr)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    WRITTEN.clear()
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return int(args.func(args))
    except MemoryError as e:
        # Its message is mostly empty: say what happened.
        detail = f" ({e})" if str(e) else ""
        print(f"wpiece: error: out of memory{detail}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader of stdout went away (`| head`): stop quietly, as Unix
        # tools do (128 + SIGPIPE), with stdout on /dev/null so that the
        # interpreter's last flush fails no more.
        if hasattr(sys.stdout, "fileno"):
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (CliError, OSError, ValueError, TypeError, OverflowError) as e:
        print(f"wpiece: error: {e or type(e).__name__}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        done = f"after writing {', '.join(WRITTEN)}" if WRITTEN else "nothing was written"
        print(f"wpiece: interrupted; {done}", file=sys.stderr)
        return 130
