"""How the ``kreview`` process ends (reviewer/cli/leave.py): with the command's status, its output and
its exit handlers, and without waiting for a loaded framework's teardown."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def _end(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    """Run ``body`` in a fresh interpreter that then leaves through ``leave``; the exit handler it
    registers writes a file, so the test sees whether handlers ran."""
    marker = tmp_path / "handler-ran"
    code = textwrap.dedent(f"""
        import atexit, sys, threading
        from pathlib import Path
        atexit.register(lambda: Path({str(marker)!r}).write_text("yes"))
        from reviewer.cli.leave import leave
        {body}
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("status", [0, 3])
def test_a_process_with_torch_ends_with_its_status_output_and_handlers(tmp_path: Path, status: int) -> None:
    done = _end(tmp_path, f"""
        import torch
        class Teardown:  # a module global's finalizer: runs in the interpreter's teardown only
            def __del__(self):
                sys.stderr.write(" and the teardown")
        kept = Teardown()
        sys.stdout.write("unflushed line without a newline")
        sys.stderr.write("to stderr")
        leave(SystemExit({status}))
        print("never printed")
    """)
    assert done.returncode == status
    assert done.stdout == "unflushed line without a newline"
    assert done.stderr == "to stderr"  # the teardown (the finalizer's line) was skipped
    assert (tmp_path / "handler-ran").read_text() == "yes"


def test_without_a_framework_loaded_it_raises_the_exit_as_python_would(tmp_path: Path) -> None:
    done = _end(tmp_path, """
        try:
            leave(SystemExit(4))
        except SystemExit as exc:
            print("raised", exc.code, "torch" in sys.modules)
    """)
    assert done.stdout.strip() == "raised 4 False"
    assert done.returncode == 0


def test_a_message_exit_a_thread_to_join_and_a_profiler_end_the_normal_way(tmp_path: Path) -> None:
    done = _end(tmp_path, """
        import torch, time
        try:
            leave(SystemExit("a message"))
        except SystemExit as exc:
            print("message raised")
        t = threading.Thread(target=time.sleep, args=(0.2,))
        t.start()
        try:
            leave(SystemExit(5))
        except SystemExit as exc:
            print("thread raised", exc.code)
        t.join()
        sys.setprofile(lambda *a: None)
        try:
            leave(SystemExit(7))
        except SystemExit as exc:
            print("profiled raised", exc.code)
        sys.setprofile(None)
        leave(SystemExit(6))
    """)
    assert done.stdout.split("\n")[:3] == ["message raised", "thread raised 5", "profiled raised 7"]
    assert done.returncode == 6
    assert (tmp_path / "handler-ran").read_text() == "yes"


def test_the_cli_returns_a_path_errors_status(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "reviewer", "review", str(tmp_path / "absent")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "no such directory" in done.stderr


def test_what_c_code_printed_and_a_closed_stdout_are_handled(tmp_path: Path) -> None:
    import os

    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    code = "; ".join(["import ctypes, torch", "from reviewer.cli.leave import leave",
                      "ctypes.CDLL(None).printf(b'from C printf' + bytes([10]))", "leave(SystemExit(4))"])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert (done.returncode, done.stdout) == (4, "from C printf\n")  # C's buffer flushed, as exit would
    code = "import torch; from reviewer.cli.leave import leave; leave(SystemExit(0))"
    closed = subprocess.run([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True, timeout=120,
                            env=env, preexec_fn=lambda: os.close(1))  # noqa: PLW1509 - the test's own child
    assert (closed.returncode, closed.stderr) == (0, "")  # sys.stdout is None there: skipped, no traceback
