"""One piece of a tool's work run in a thread of this process while the tools before it run.

A tool whose work waits on processes of its own (a compile child, ptxas, nvdisasm, nvcc), never on the
submission child the tools before it share, may start that work ahead (``Tool.start_apart``,
``Tool.ahead``) and take its result when it runs: the same calls, made earlier, beside the chain of
submission calls that keeps one core busy (issue 34). Work started through ``ToolContext.start_background``
never outlives the review: the tool that started it takes its result or stops it when it runs, and the
review's close stops whatever is left (an interrupted review), so no compiler runs on, nor writes into the
run's folder, once the review has ended. The thread is a daemon only so that a process that exits without
that close is not held up by it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Generic, TypeVar

T = TypeVar("T")
_SCOPE = threading.local()


def stop_event() -> threading.Event | None:
    """The ``stopping`` event of the work running in this thread (None outside such work): what
    ``tools.engine.compilers.toolchain.run_tool`` looks at to end its tool, or not start one."""
    return getattr(_SCOPE, "stopping", None)


class Background(Generic[T]):
    """``work(stopping)`` started now in a daemon thread; ``result()`` waits for it and returns its value or
    raises its exception, as calling it there would have. ``stop()`` asks it to end: ``stopping`` is set,
    ``on_stop`` is called (it ends what the work waits on, a child say), and every compiler tool the work
    runs through ``tools.engine.compilers.toolchain.run_tool`` is ended or not started (``stop_event``)."""

    def __init__(self, work: Callable[[threading.Event], T], *, name: str,
                 on_stop: Callable[[], None] | None = None) -> None:
        self.stopping = threading.Event()
        self._on_stop = on_stop
        self._future: Future[T] = Future()
        self._future.set_running_or_notify_cancel()
        self._thread = threading.Thread(target=self._run, args=(work,), name=f"kreview-{name}", daemon=True)
        self._thread.start()

    def _run(self, work: Callable[[threading.Event], T]) -> None:
        _SCOPE.stopping = self.stopping  # this thread's, for as long as it lives
        try:
            value = work(self.stopping)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller of result(), which raises it
            self._future.set_exception(exc)
        else:
            self._future.set_result(value)

    def result(self) -> T:
        return self._future.result()

    def done(self) -> bool:
        return self._future.done()

    def stop(self, wait_s: float = 10.0) -> None:
        """End unfinished work (its result is never taken) and wait up to ``wait_s`` for its thread, so its
        own clean-ups (temporary folders, its child) run before the caller goes on; finished work: nothing."""
        if self._future.done():
            return
        self.stopping.set()
        if self._on_stop is not None:
            with contextlib.suppress(Exception):
                self._on_stop()
        self._thread.join(wait_s)
