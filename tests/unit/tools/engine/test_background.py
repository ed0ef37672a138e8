"""tools/engine/background.py: work started in a thread gives its value, or raises its exception, where
its result is taken, as calling it there would; the thread never keeps the process from ending."""

from __future__ import annotations

import threading

import pytest

from tools.engine.background import Background


def test_the_value_comes_back_from_another_thread() -> None:
    started = threading.Event()
    release = threading.Event()

    def work() -> tuple[str, bool]:
        started.set()
        release.wait(10)
        return threading.current_thread().name, threading.current_thread().daemon

    job = Background(work, name="unit")
    assert started.wait(10)
    assert not job.done()  # running beside this thread, not before Background() returned
    release.set()
    assert job.result() == ("kreview-unit", True)
    assert job.done()


def test_the_exception_is_raised_where_the_result_is_taken() -> None:
    def work() -> None:
        raise ValueError("compile child gone")

    job = Background(work, name="failing")
    with pytest.raises(ValueError, match="compile child gone"):
        job.result()
    with pytest.raises(ValueError):  # every time it is asked
        job.result()
