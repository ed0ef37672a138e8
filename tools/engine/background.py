"""One piece of a tool's work run in a thread of this process while the tools before it run.

A tool whose work waits on processes of its own (a compile child, ptxas, nvdisasm), never on the
submission child the tools before it share, may start that work ahead (``Tool.ahead``) and take its
result when it runs: the same calls, made earlier, beside the chain of submission calls that keeps one
core busy (issue 34). The thread is a daemon: a review that is interrupted does not wait for it at exit;
the work closes what it opened itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Generic, TypeVar

T = TypeVar("T")


class Background(Generic[T]):
    """``work()`` started now in a daemon thread; ``result()`` waits for it and returns its value or
    raises its exception, as calling ``work()`` there would have."""

    def __init__(self, work: Callable[[], T], *, name: str) -> None:
        self._future: Future[T] = Future()
        self._future.set_running_or_notify_cancel()
        self._thread = threading.Thread(target=self._run, args=(work,), name=f"kreview-{name}", daemon=True)
        self._thread.start()

    def _run(self, work: Callable[[], T]) -> None:
        try:
            value = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller of result(), which raises it
            self._future.set_exception(exc)
        else:
            self._future.set_result(value)

    def result(self) -> T:
        return self._future.result()

    def done(self) -> bool:
        return self._future.done()
