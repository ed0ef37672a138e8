"""A child the worker starts dies when the reviewer's process dies (PR_SET_PDEATHSIG), and the libc call
that arranges it was looked up before any fork, not in the child between fork and exec."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import tools.engine.sandbox.worker as worker

ROOT = Path(__file__).resolve().parents[5]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

# a stand-in for the reviewer: starts `sleep` with the worker's pre-exec hook, prints its pid, waits
_REVIEWER = """
import subprocess, sys, time
from tools.engine.sandbox.worker import _set_pdeathsig
p = subprocess.Popen(["sleep", "120"], preexec_fn=_set_pdeathsig)
print(p.pid, flush=True)
time.sleep(120)
"""


def _state(pid: int) -> str | None:
    """The process's state letter (Z: dead, not yet reaped), or None once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


# the hook as a child runs it between fork and exec: no library opened or symbol looked up there
_HOOK_ONLY = """
import sys
from tools.engine.sandbox.worker import _set_pdeathsig
seen = []
sys.addaudithook(lambda event, args: seen.append(event) if event.startswith("ctypes.dl") else None)
_set_pdeathsig()
print(",".join(seen) or "none")
"""


def test_the_hook_opens_no_library_and_looks_up_no_symbol() -> None:
    assert worker._PRCTL is not None and callable(worker._PRCTL)
    done = subprocess.run([sys.executable, "-c", _HOOK_ONLY], capture_output=True, text=True, env=ENV, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == "none", done.stdout


def test_the_child_dies_with_the_process_that_started_it() -> None:
    reviewer = subprocess.Popen([sys.executable, "-c", _REVIEWER], stdout=subprocess.PIPE, text=True, env=ENV)
    child = 0
    try:
        assert reviewer.stdout is not None
        child = int(reviewer.stdout.readline())
        assert _state(child) not in (None, "Z")
        reviewer.kill()
        reviewer.wait(timeout=30)
        deadline = time.monotonic() + 20
        while _state(child) not in (None, "Z") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _state(child) in (None, "Z"), "the child outlived the process that started it"
    finally:
        if reviewer.poll() is None:
            reviewer.kill()
            reviewer.wait()
        if child and _state(child) not in (None, "Z"):
            os.kill(child, 9)  # the check failed: do not leave the sleep behind
