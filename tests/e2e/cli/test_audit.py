"""``kreview audit``: JSON shape, exit 1 on a degenerate task and 0 on sound ones, a progress line per
task on stderr, exit 2 (before anything runs) for a folder without a task."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import sys
from pathlib import Path

from tests.cli_runner import flat, invoke
from tests.conftest import DATA, ROOT

TASKS = DATA / "tasks"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory() as cache:  # never the user's audit cache, never a hit from another test
        return subprocess.run([sys.executable, "-m", "reviewer", "audit", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=600, env=dict(os.environ, XDG_CACHE_HOME=cache))


def test_degenerate_and_sound_tasks_in_json() -> None:
    res = _run(str(TASKS / "relu_rand"), str(TASKS / "matmul_randn"), "--format", "json")
    assert res.returncode == 1, res.stderr
    tasks = {Path(t["path"]).name: t for t in json.loads(res.stdout)["tasks"]}
    relu, matmul = tasks["relu_rand"], tasks["matmul_randn"]
    assert relu["degenerate"] is True and matmul["degenerate"] is False and matmul["findings"] == []
    for f in relu["findings"]:
        assert {"kind", "impostor", "passes_task_check", "detail"} <= set(f)
    copy = [f for f in relu["findings"] if f["impostor"] == "input 0 passed through"]
    assert copy and copy[0]["passes_task_check"] is True and "max |diff| 0" in copy[0]["detail"]
    assert res.stderr.count("auditing") == 2


def test_sound_task_exits_0_in_text() -> None:
    res = _run(str(TASKS / "gelu_randn"), "-q")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("sound") and "1 task(s) audited, 0 degenerate" in res.stdout
    assert res.stderr == ""


def test_a_folder_without_a_task_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("no task here\n")
    res = invoke("audit", str(tmp_path))
    assert res.exit_code == 2, res.output
    assert "no task here" in flat(res.output) and "Traceback" not in res.output
    assert invoke("audit", str(tmp_path / "missing")).exit_code == 2


def test_jobs_below_one_is_a_usage_error() -> None:
    res = invoke("audit", str(TASKS / "gelu_randn"), "--jobs", "0")
    assert res.exit_code == 2, res.output
    assert "--jobs" in flat(res.output) and "Traceback" not in res.output
