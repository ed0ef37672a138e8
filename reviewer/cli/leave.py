"""How the ``kreview`` process ends once its command has finished.

A command that ran a review has torch (and often triton and jax) loaded. After the exit handlers, the
interpreter's own teardown of those modules takes 0.4-0.8 s on the project's 2-core machine, which
the user waits for after the last line is printed (issue 34; benchmarks/demo_review.py); a sign-off's
LangGraph takes 0.2 s (benchmarks/cli_startup.py). Such a
process runs the exit handlers, flushes its output and ends at once (``os._exit``). Every other
process ends as Python ends it: one that still has a thread of its own to wait for, and one under a
profiler or a tracer (``python -m cProfile -m reviewer ...`` writes its profile after the command returns).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

HEAVY = ("torch", "triton", "jax", "langgraph")
"""The modules whose teardown is the wait: without any of them, the normal exit is as fast. LangGraph's
(with langchain_core, langsmith and pydantic's models) is a sign-off's: 0.2 s of its 1.2-1.5 s on the
2-core machine."""


def _status(exc: SystemExit) -> int | None:
    """The exit status ``exc`` stands for, or None where only Python's own exit says it (a message)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, bool) or not isinstance(code, int):
        return None
    return code


def _waits_for_threads() -> bool:
    """Whether a normal exit would join a thread (a non-daemon thread other than the main one)."""
    main = threading.main_thread()
    return any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate())


def _observed() -> bool:
    """Whether a profiler or a tracer watches this process (it writes its results after the command)."""
    return sys.getprofile() is not None or sys.gettrace() is not None


def _flush() -> bool:
    """Flush Python's standard streams (a missing one is skipped); False where stdout or stderr could not
    take its output (a closed pipe)."""
    ok = True
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # its descriptor was closed when Python started
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            ok = False
    return ok


def _flush_c_streams() -> None:
    """Flush C's stdio buffers (what a native library printed): ``exit`` would, ``os._exit`` does not."""
    try:
        import ctypes

        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):
        pass


def leave(exc: SystemExit) -> NoReturn:
    """End the process with ``exc``'s status: straight after the exit handlers where a heavy framework is
    loaded, else by raising ``exc`` as usual."""
    status = _status(exc)
    if status is None or not -(2**31) <= status < 2**31 or not any(m in sys.modules for m in HEAVY) \
            or _waits_for_threads() or _observed():
        raise exc
    # a stream that cannot take its output: Python's own exit says so and sets its status (120)
    if not _flush():
        raise exc
    # Rationale: what a normal exit does and the process still needs: the registered exit handlers
    # (logging's flush, temporary folders, ray's shutdown) and the buffered output, Python's and C's. What
    # it skips is the modules' teardown, which leaves nothing behind (the sandbox children are killed and
    # their folders removed before the command returns).
    atexit._run_exitfuncs()
    if not _flush() and status == 0:
        status = 120  # as Python's exit, where an exit handler's output cannot be written
    _flush_c_streams()
    os._exit(status)
