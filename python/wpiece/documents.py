"""Documents for training and the command line: which files (paths, globs,
``-``) and, through the core's one reader, their documents.

A document is a line of a plain or gzip-compressed (``.gz``) text file, or the
string field of a line of a JSON Lines file (``.jsonl``, ``.jsonl.gz``).
Sources are paths, globs (``corpus/*.txt.gz``, ``**`` recursive) or ``-`` for
standard input; a path that exists is taken as it is (``data[1].txt``), only
one that does not is expanded as a glob. Errors say what went wrong and where:

- a missing file or folder: ``FileNotFoundError`` (``no such file: ...``,
  ``no such folder: ...``, ``no file matches ...``); a folder, a FIFO or a
  device instead of a file: ``IsADirectoryError`` or ``ValueError``;
- invalid UTF-8: ``ValueError`` naming the file (or ``stdin``) and the byte
  offset; broken gzip data: ``OSError`` naming the file (as Python's ``gzip``);
- in JSON Lines, invalid JSON or a missing or non-string field: ``ValueError``
  naming the file and the line (``data.jsonl:3: no string field 'text'``).

>>> import json, tempfile, os
>>> folder = tempfile.mkdtemp()
>>> with open(os.path.join(folder, "a.txt"), "w") as f:
...     _ = f.write("first line\\nsecond line\\n")
>>> with open(os.path.join(folder, "b.jsonl"), "w") as f:
...     _ = f.write(json.dumps({"text": "from json"}) + "\\n")
>>> list(read_documents(os.path.join(folder, "a.txt")))
['first line', 'second line']
>>> list(read_documents(os.path.join(folder, "*.jsonl"), jsonl_field="text"))
['from json']
"""

from __future__ import annotations

import glob
import os
import stat
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, Optional, Union

from . import _core

__all__ = [
    "STDIN",
    "FieldRequiredError",
    "Files",
    "PathLike",
    "check_input_file",
    "is_jsonl",
    "path_items",
    "read_documents",
    "read_file",
    "read_jsonl",
    "read_lines",
    "resolve_files",
]

PathLike = Union[str, "os.PathLike[str]"]
"""A path argument: ``str`` or ``os.PathLike``."""
Files = Union[PathLike, Sequence[PathLike]]
"""One path or glob, or a sequence of them."""

STDIN = "-"
"""The source name that stands for standard input in :func:`read_documents`."""

# Bytes read from a stream at a time.
_STREAM_BLOCK = 1 << 16


class FieldRequiredError(ValueError):
    """A JSON Lines file was given without the name of the field holding the text."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path}: JSON Lines input needs the name of the field holding the text (jsonl_field)"
        )
        self.path = path


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


def path_items(files: Files, name: str = "files") -> list[PathLike]:
    """``files`` as a list of paths: one path, or an iterable of them
    (each a ``str``, ``os.PathLike`` or bytes, named by its index if not)."""
    if isinstance(files, (str, os.PathLike)):
        return [files]
    what = "a path, a glob or a list of them"
    if isinstance(files, bytes):
        raise TypeError(f"{name} must be {what}, not bytes")
    try:
        items = list(files)
    except TypeError:
        raise TypeError(f"{name} must be {what}, got {type(files).__name__}") from None
    for k, item in enumerate(items):
        if isinstance(item, bytes):
            items[k] = os.fsdecode(item)
        elif not isinstance(item, (str, os.PathLike)):
            kind = type(item).__name__
            raise TypeError(f"item {k} of {name} is {kind}, not a str or os.PathLike path")
    return items


def resolve_files(files: Files) -> list[Path]:
    """Expands globs; every path must be a regular file (the error says what
    it is otherwise: missing, a folder, a FIFO or a device). A path that
    exists is taken literally, even with glob characters in its name: read
    as a glob, ``data[1].txt`` would match ``data1.txt`` instead.

    >>> import wpiece
    >>> resolve_files(str(wpiece.sample_text_path()))[0].name
    'sample.txt'
    """
    out: list[Path] = []
    for item in path_items(files):
        s = os.fsdecode(os.fspath(item))
        if not s:
            raise ValueError("an input path is empty")
        if glob.has_magic(s) and not os.path.lexists(s):
            matches = sorted(glob.glob(s, recursive=True))
            if not matches:
                raise FileNotFoundError(f"no file matches {s}")
            out.extend(check_input_file(Path(m)) for m in matches)
        else:
            out.append(check_input_file(Path(s)))
    if not out:
        raise ValueError("no input files given")
    return out


def require_field(paths: Iterable[PathLike], jsonl_field: Optional[str]) -> None:
    """Raises :class:`FieldRequiredError` for the first JSON Lines file of
    ``paths`` when no ``jsonl_field`` is given: its lines are JSON, not text.

    >>> require_field([Path("a.txt")], None)
    >>> require_field([Path("a.txt"), Path("a.jsonl")], None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    wpiece.documents.FieldRequiredError: a.jsonl: JSON Lines input needs the name of the field ...
    """
    if jsonl_field is not None:
        return
    for path in map(Path, paths):
        if is_jsonl(path):
            raise FieldRequiredError(path)


def is_jsonl(path: Path) -> bool:
    """Whether the file name says JSON Lines: ``.jsonl`` or ``.ndjson`` (the
    same format), plain or ``.gz``, in any case (as the core decides).

    >>> is_jsonl(Path("a.jsonl.gz")), is_jsonl(Path("A.JSONL")), is_jsonl(Path("a.ndjson"))
    (True, True, True)
    >>> is_jsonl(Path("a.txt.gz")), is_jsonl(Path("a.json"))
    (False, False)
    """
    return path.name.lower().endswith(_JSON_LINES_SUFFIXES)


# As the core's `io::documents::JSON_LINES_SUFFIXES`.
_JSON_LINES_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")


def _file_documents(path: Path, jsonl_field: Optional[str]) -> Iterator[str]:
    """The documents of a file, read block by block by the core."""
    check_input_file(path)
    for block in _core.FileDocuments(path, jsonl_field):
        yield from block


def _stream_documents(stream: BinaryIO, name: str, jsonl_field: Optional[str]) -> Iterator[str]:
    """The documents of a binary stream: Python reads its bytes, the core's
    reader splits and decodes them."""
    reader = _core.DocumentReader(name, jsonl_field)
    while chunk := stream.read(_STREAM_BLOCK):
        yield from reader.push(chunk)
    yield from reader.finish()


def read_lines(source: Union[PathLike, BinaryIO], name: Optional[str] = None) -> Iterator[str]:
    """Lines of a file (plain or `.gz`) or of a binary stream, without their
    line ends. Bad UTF-8 raises ``ValueError`` naming the file (or ``name``,
    e.g. stdin) and the byte offset; broken `.gz` data an error naming the
    file.

    >>> import wpiece
    >>> next(read_lines(wpiece.sample_text_path()))[:30]
    'In the beginning God created t'
    """
    if isinstance(source, (str, os.PathLike)):
        return _file_documents(Path(source), None)
    return _stream_documents(source, name or str(source), None)


def read_jsonl(
    source: Union[PathLike, BinaryIO], field: str, name: Optional[str] = None
) -> Iterator[str]:
    """The string ``field`` of each line of a JSON Lines file (plain or
    ``.gz``) or binary stream; blank lines are skipped. Errors name the file
    (or ``name``) and the line.

    >>> import io
    >>> list(read_jsonl(io.BytesIO(b'{"text": "a b"}\\n\\n{"text": "c"}\\n'), "text"))
    ['a b', 'c']
    >>> list(read_jsonl(io.BytesIO(b'{"body": "a"}\\n'), "text", "stdin"))
    Traceback (most recent call last):
    ValueError: stdin:1: no string field 'text'
    """
    if isinstance(source, (str, os.PathLike)):
        return _file_documents(Path(source), field)
    return _stream_documents(source, name or str(source), field)


def read_file(path: Path, jsonl_field: Optional[str] = None) -> Iterator[str]:
    """The documents of one file: its lines, or with ``jsonl_field`` that
    field of each JSON line (required for a ``.jsonl`` file)."""
    require_field([path], jsonl_field)
    if jsonl_field is None:
        return read_lines(path)
    return read_jsonl(path, jsonl_field)


def read_documents(
    sources: Files, jsonl_field: Optional[str] = None, *, stdin: Optional[BinaryIO] = None
) -> Iterator[str]:
    """The documents of every source, in order (lazily: a source is opened
    when the documents before it are consumed).

    A source is a path or a glob, or ``"-"`` for standard input (``stdin``
    when given, else ``sys.stdin``). With ``jsonl_field`` every source is read
    as JSON Lines; without, every source is read as lines of text, and a
    ``.jsonl`` or ``.jsonl.gz`` file raises :class:`FieldRequiredError`.

    >>> import io, wpiece
    >>> docs = read_documents([wpiece.sample_text_path(), "-"], stdin=io.BytesIO(b"last\\n"))
    >>> sum(1 for _ in docs)
    401
    """
    items = path_items(sources, "sources")
    if not items:
        raise ValueError("no input files given")
    for item in items:
        if isinstance(item, str) and item == STDIN:
            stream = stdin if stdin is not None else sys.stdin.buffer
            if jsonl_field is None:
                yield from read_lines(stream, "stdin")
            else:
                yield from read_jsonl(stream, jsonl_field, "stdin")
            continue
        for path in resolve_files(item):
            yield from read_file(path, jsonl_field)
