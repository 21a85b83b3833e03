"""Engines' worker processes are settled once, after their first wpiece
task succeeds: garbage collected, then what is alive frozen out of later
full collections (``gc.freeze``). Each case runs in a fresh interpreter, as
a worker would be: freezing the test process would change what it tests."""

from __future__ import annotations

import subprocess
import sys
import textwrap


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
