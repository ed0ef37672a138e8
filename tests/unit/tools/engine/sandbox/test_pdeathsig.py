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


def test_prctl_is_resolved_at_import() -> None:
    assert worker._PRCTL is not None
    assert callable(worker._PRCTL)


def test_the_child_dies_with_the_process_that_started_it() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    reviewer = subprocess.Popen([sys.executable, "-c", _REVIEWER], stdout=subprocess.PIPE, text=True, env=env)
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
