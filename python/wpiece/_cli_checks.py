"""The command line's checks of its output paths, made before a long run:
an output that cannot be written, or one that would replace a file the
command reads (its input, its tokenizer)."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from .documents import STDIN, resolve_files
from .persistence import _FOLDER_FILES

TRAIN_OUTPUTS = _FOLDER_FILES
"""The files `wpiece train` may write into its output folder."""


class CliError(Exception):
    """A user error: printed without a traceback, exit status 2."""


def check_output_folder(path: str) -> None:
    """Fails now, not after a long run, if `path` cannot become a folder of
    outputs: its nearest existing ancestor must be a writable folder. An
    empty path is refused (Path("") is the current folder, whose files the
    outputs would replace)."""
    if not path:
        raise CliError("the output path is empty")
    p = Path(path).absolute()
    if p.exists() and not p.is_dir():
        raise CliError(f"{path} exists and is not a folder")
    ancestor = p
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise CliError(f"cannot write to {path}: {ancestor} is not a folder")
    try:
        probe = tempfile.TemporaryFile(dir=ancestor)
    except OSError as e:
        raise CliError(f"cannot write to {path}: {ancestor}: {e.strerror}") from None
    probe.close()


def check_output_file(path: str) -> None:
    """Fails now if `path` cannot be replaced by a regular file."""
    if not path:
        raise CliError("the output path is empty")
    if Path(path).is_dir():
        raise CliError(f"{path} is a folder; give a file name")
    if Path(path).exists() and not Path(path).is_file():
        # The rename would put a file in place of a FIFO or of /dev/null.
        raise CliError(f"{path} is not a regular file (a device, FIFO or socket)")
    check_output_folder(str(Path(path).absolute().parent))


def _same_file(a: Path, b: Path) -> bool:
    """Whether `a` and `b` name one file: by device and inode when both
    exist (hard links, symlinks), else by their resolved paths."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def tokenizer_files(path: str) -> list[Path]:
    """The files loading the tokenizer at `path` may read: the file, or the
    files a folder save holds."""
    p = Path(path)
    return [p / name for name in _FOLDER_FILES] if p.is_dir() else [p]


def input_files(sources: Sequence[str]) -> list[Path]:
    """The files `sources` (paths, globs, ``-``) name, as they will be read;
    a missing one raises here as the reading would."""
    named = [s for s in sources if s != STDIN]
    files = resolve_files(named) if named else []
    if STDIN in sources and _stdin_is_a_file():
        # `-o corpus.txt < corpus.txt`: standard input is that file.
        files.append(Path(f"/dev/fd/{sys.stdin.fileno()}"))
    return files


def _stdin_is_a_file() -> bool:
    try:
        return stat.S_ISREG(os.fstat(sys.stdin.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):  # closed, or not a real file
        return False


def refuse_overwriting(outputs: Iterable[Path], reads: Iterable[tuple[str, Path]]) -> None:
    """Raises :class:`CliError` if an output is a file the command reads:
    the rename would replace it (a corpus, a vocab.txt) with the output.
    `reads` pairs each read file with what it is ("input", "tokenizer")."""
    read = list(reads)
    for out in outputs:
        for what, path in read:
            if _same_file(out, path):
                raise CliError(f"the output {out} is the {what} {path}; give -o another path")
