"""tools/engine/background.py: work started in a thread gives its value, or raises its exception, where
its result is taken, as calling it there would; stopped, it ends what it waits on (a compiler tool run
through toolchain.run_tool, a child through ``on_stop``) and its clean-ups run before ``stop`` returns."""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from pathlib import Path

import pytest

import tools.engine.compilers.toolchain as toolchain
from tools.engine.background import Background


def test_the_value_comes_back_from_another_thread() -> None:
    started = threading.Event()
    release = threading.Event()

    def work(stopping: threading.Event) -> tuple[str, bool, bool]:
        started.set()
        release.wait(10)
        return threading.current_thread().name, threading.current_thread().daemon, stopping.is_set()

    job = Background(work, name="unit")
    assert started.wait(10)
    assert not job.done()  # running beside this thread, not before Background() returned
    release.set()
    assert job.result() == ("kreview-unit", True, False)
    assert job.done()
    job.stop()  # finished work: nothing to stop
    assert not job.stopping.is_set()


def test_the_exception_is_raised_where_the_result_is_taken() -> None:
    def work(stopping: threading.Event) -> None:
        raise ValueError("compile child gone")

    job = Background(work, name="failing")
    with pytest.raises(ValueError, match="compile child gone"):
        job.result()
    with pytest.raises(ValueError):  # every time it is asked
        job.result()


@pytest.mark.skipif(shutil.which("sleep") is None, reason="no sleep command")
def test_stop_ends_the_compiler_tool_it_waits_on_and_its_clean_ups_run(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Path] = []  # the folders run_tool makes for itself (other tests may make theirs meanwhile)
    mkdtemp = tempfile.mkdtemp

    def recorded(*args: object, **kwargs: object) -> str:
        made.append(Path(mkdtemp(*args, **kwargs)))  # type: ignore[arg-type]
        return str(made[-1])

    monkeypatch.setattr(tempfile, "mkdtemp", recorded)
    runs: list[toolchain.ToolRun] = []

    def work(stopping: threading.Event) -> None:
        runs.append(toolchain.run_tool(["sleep", "30"], cwd=tmp_path / "one", timeout=60))
        runs.append(toolchain.run_tool(["sleep", "30"], cwd=tmp_path / "two", timeout=60))  # not started

    job = Background(work, name="sleeper")
    time.sleep(1.0)  # the first tool is running
    t0 = time.monotonic()
    job.stop()
    assert time.monotonic() - t0 < 5 and job.done()
    first, second = runs
    assert first.timed_out and first.returncode is None and "stopped: the review ended" in first.stderr
    assert second.returncode is None and second.seconds == 0.0 and "not started" in second.stderr
    own = [d for d in made if d.name.startswith("kreview-tool-etc-")]
    assert len(own) == 1 and not own[0].exists()  # run_tool's own folder was removed before stop returned


def test_stop_calls_on_stop_for_what_the_work_waits_on() -> None:
    release = threading.Event()

    def work(stopping: threading.Event) -> str:
        release.wait(30)  # a child's answer, say
        return "stopped" if stopping.is_set() else "answered"

    job = Background(work, name="child", on_stop=release.set)
    job.stop()
    assert job.result() == "stopped"


def test_a_tool_run_outside_a_stoppable_thread_is_unchanged(tmp_path: Path) -> None:
    run = toolchain.run_tool(["true"], cwd=tmp_path, timeout=30)
    assert run.ok and not run.timed_out
