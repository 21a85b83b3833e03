"""The Ctrl-C harness of the interrupt tests: a child process says when it is
about to start a long call, the parent sends SIGINT half a second later and
times how long the child takes to stop (exit 130, having printed
"interrupted")."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

# Generous: the machine is shared and noisy; without the fix these calls run on
# for many seconds after the signal.
BOUND_S = 2.0

# How long after "ready" the signal is sent: well into the call.
DELAY_S = 0.5

CHILD = """
import sys, time
import wpiece
{setup}
print("ready", flush=True)
try:
    {call}
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
print("finished", flush=True)
"""


def interrupt(setup: str, call: str, cwd: Path, timeout: float = 120) -> tuple[float, str]:
    """Runs the call in a child, SIGINTs it mid-call; (seconds to exit, stdout)."""
    code = CHILD.format(setup=textwrap.dedent(setup), call=call)
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=cwd
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    time.sleep(DELAY_S)
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    try:
        out, _ = child.communicate(timeout=timeout)
    finally:
        child.kill()
    elapsed = time.monotonic() - sent
    assert child.returncode == 130, (child.returncode, out, f"{elapsed:.1f} s after SIGINT")
    assert "interrupted" in out
    return elapsed, out


# One child, several calls: for a setup too costly to repeat per call. Between
# calls SIGINT is ignored, so a signal that comes after its call has ended
# cannot land anywhere else; the parent sends exactly one per call.
CHILD_EACH = """
import signal, sys, time
import wpiece
{setup}
for call in {calls!r}:
    # A code object: exec of a str would mark a KeyboardInterrupt in it as
    # unhandled, and the child would kill itself with SIGINT at exit.
    code = compile(call, "<call>", "exec")
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stdin.readline()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    print("ready", flush=True)
    try:
        try:
            exec(code)
            outcome = "finished"
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    except KeyboardInterrupt:
        outcome = "interrupted"
    print(outcome, flush=True)
"""


def interrupt_each(
    setup: str, calls: list[str], cwd: Path, timeout: float = 600
) -> dict[str, tuple[float, str]]:
    """Runs the setup once in a child, then each call in turn, SIGINTing it
    mid-call: {call: (seconds from the signal to the call's end, "interrupted"
    or "finished")}. The child is killed if the whole run passes `timeout`."""
    code = CHILD_EACH.format(setup=textwrap.dedent(setup), calls=calls)
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )
    assert child.stdin is not None and child.stdout is not None
    watchdog = threading.Timer(timeout, child.kill)
    watchdog.start()
    results: dict[str, tuple[float, str]] = {}
    try:
        for call in calls:
            child.stdin.write("go\n")
            child.stdin.flush()
            assert child.stdout.readline().strip() == "ready", (call, child.poll())
            time.sleep(DELAY_S)
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            outcome = child.stdout.readline().strip()
            results[call] = (time.monotonic() - sent, outcome)
            assert outcome in ("interrupted", "finished"), (call, outcome, child.poll())
        child.stdin.close()
        assert child.wait() == 0, f"the child exited with {child.returncode}"
    finally:
        watchdog.cancel()
        child.kill()
        child.wait()
    return results


def interrupt_command(
    args: list[str], cwd: Path, wait: float = 2.0, timeout: float = 120
) -> tuple[float, int, str]:
    """Runs a command (no "ready" line: SIGINT comes `wait` seconds after the
    start, which must find it still running); (seconds from the signal to its
    exit, exit code, stderr)."""
    child = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd
    )
    try:
        time.sleep(wait)
        assert child.poll() is None, "the command ended before it could be interrupted"
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=timeout)
    finally:
        child.kill()
        child.wait()
    return time.monotonic() - sent, child.returncode, err


def listing(folder: Path) -> list[str]:
    """Every file and folder under `folder`, hidden ones (temp files) included."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
