"""The command line's outputs: each written under a temporary name and
renamed into place, and a record of what this run has written (a Ctrl-C
after that must not say that nothing was)."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

# What this run's command has written in place, as the user named it.
WRITTEN: list[str] = []


@contextlib.contextmanager
def atomic_output(path: str) -> Iterator[IO[str]]:
    """A text file written under a temporary name beside `path` and renamed
    to it when the block ends; on an error or Ctrl-C the temporary file is
    removed and `path` is left as it was."""
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    # Missing folders are made, as the .npy output's set writer makes them
    # (the temporary file's name was the error otherwise), and removed again
    # if the output is not written.
    made = [p for p in [target.parent, *target.parent.parents] if not p.exists()]
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        if target.exists():
            shutil.copymode(target, tmp)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
        WRITTEN.append(str(path))
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        for folder in made:  # deepest first; one another process filled stays
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
