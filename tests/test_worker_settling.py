"""Engines' worker processes are settled once, after their first wpiece
task succeeds: garbage collected, then what is alive frozen out of later
full collections (``gc.freeze``). Each case runs in a fresh interpreter, as
a worker would be: freezing the test process would change what it tests."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def run_fresh(code: str) -> None:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr


def test_a_worker_is_settled_once_after_its_first_successful_task() -> None:
    run_fresh(
        """
        import gc
        from wpiece._distributed import guarded, in_worker

        gc.disable()  # no automatic collection: only the settling one
        assert gc.get_freeze_count() == 0
        # A failed task settles nothing: its error goes to the driver as it is.
        outcome = guarded(int, "not a number")
        assert outcome[0] == "error" and outcome[1] == "ValueError", outcome
        assert gc.get_freeze_count() == 0
        # Garbage (a cycle) made before the first success is freed, not frozen.
        import weakref
        class Node:
            pass
        a, b = Node(), Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        assert gone() is not None  # only a collection frees a cycle
        assert guarded(sum, [1, 2]) == ("ok", 3)
        frozen = gc.get_freeze_count()
        assert frozen > 1000, frozen
        assert gone() is None
        # Once per process: later tasks, by either route, freeze nothing more.
        assert in_worker(max, 4, 9) == 9
        assert guarded(len, "abc") == ("ok", 3)
        assert gc.get_freeze_count() == frozen
        """
    )


def test_ray_tasks_go_through_in_worker_and_settle_it() -> None:
    run_fresh(
        """
        import gc
        from wpiece._distributed import in_worker

        assert in_worker(divmod, 7, 2) == (3, 1)
        assert gc.get_freeze_count() > 1000
        """
    )


# A fresh interpreter with a zip archive on its path, a module imported from it.
# (Indented as the tests' own code, which follows it.)
ON_PATH = """
        import importlib, os, sys, zipfile, zipimport
        from wpiece._distributed import guarded

        archive = {archive!r}
        with zipfile.ZipFile(archive, "w") as z:
            z.writestr("first_module.py", "VALUE = 1")
        sys.path.insert(0, archive)
        import first_module
"""


def test_zip_archives_on_the_path_are_read_again_only_once_changed(tmp_path: Path) -> None:
    # PySpark's worker calls importlib.invalidate_caches() before each task;
    # before Python 3.13 every zipimporter then read its archive again.
    run_fresh(
        ON_PATH.format(archive=str(tmp_path / "lib.zip"))
        + """
        [importer] = [i for i in sys.path_importer_cache.values()
                      if isinstance(i, zipimport.zipimporter)]
        reads = []
        real = zipimport._read_directory
        zipimport._read_directory = lambda path: reads.append(path) or real(path)
        importlib.invalidate_caches()
        assert len(reads) == (1 if sys.version_info < (3, 13) else 0), reads
        assert guarded(abs, -1) == ("ok", 1)  # the first task settles the worker
        reads.clear()
        for _ in range(3):
            importlib.invalidate_caches()
        # The first call after settling reads once (the archive may have
        # changed while the first task ran), the next ones not at all.
        assert reads == ([archive] if sys.version_info < (3, 13) else []), reads
        reads.clear()
        # Changed (a module added, new size and time): read again, and seen.
        with zipfile.ZipFile(archive, "a") as z:
            z.writestr("second_module.py", "VALUE = 2")
        os.utime(archive, ns=(1, 1))
        importlib.invalidate_caches()
        import second_module
        assert second_module.VALUE == 2
        assert reads == [archive], reads
        """
    )


def test_an_archive_changed_before_settling_or_read_in_vain_is_read_again(tmp_path: Path) -> None:
    # Changed while the first task ran (before the wrapping), then a read
    # that fails (the archive unreadable for a moment): both seen later.
    run_fresh(
        ON_PATH.format(archive=str(tmp_path / "lib.zip"))
        + """
        importlib.invalidate_caches()
        with zipfile.ZipFile(archive, "a") as z:
            z.writestr("second_module.py", "VALUE = 2")
        assert guarded(abs, -1) == ("ok", 1)
        importlib.invalidate_caches()
        import second_module
        os.rename(archive, archive + ".away")
        with zipfile.ZipFile(archive + ".away", "a") as z:
            z.writestr("third_module.py", "VALUE = 3")
        importlib.invalidate_caches()  # no archive: the read fails
        os.rename(archive + ".away", archive)
        importlib.invalidate_caches()
        import third_module
        assert third_module.VALUE == 2 + 1
        """
    )
