"""Without bubblewrap the reviewer refuses to run submission code (exit 2, how to fix it), unless
``--unsafe-no-sandbox``, which the review records and prints first."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import EXAMPLES


def _review(tmp_path, *extra: str) -> subprocess.CompletedProcess[str]:
    empty = tmp_path / "empty-path"
    empty.mkdir(exist_ok=True)
    # no bwrap on PATH: what a machine without bubblewrap looks like
    env = {**os.environ, "PATH": str(empty), "KREVIEW_RUNS_DIR": str(tmp_path / "runs")}
    env.pop("KREVIEW_UNSAFE_NO_SANDBOX", None)
    return subprocess.run([sys.executable, "-m", "reviewer.cli", "review", str(EXAMPLES / "softmax_triton"),
                           "--only", "builds", "--no-signoff", "--format", "json", *extra],
                          capture_output=True, text=True, env=env, timeout=300, check=False)


def test_no_bubblewrap_means_no_review_and_a_hint(tmp_path) -> None:
    out = _review(tmp_path)
    assert out.returncode == 2, out.stderr[-2000:]
    assert "sandbox_unavailable" in out.stderr and "bubblewrap" in out.stderr
    assert "apt-get install -y bubblewrap" in out.stderr and "--unsafe-no-sandbox" in out.stderr
    assert out.stdout == ""
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_unsafe_no_sandbox_runs_and_is_recorded_first(tmp_path) -> None:
    out = _review(tmp_path, "--unsafe-no-sandbox")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stderr.lstrip().startswith("WARNING: NO SANDBOX")
    review = json.loads(out.stdout)
    assert review["environment"]["unsafe_no_sandbox"] is True
    assert review["environment"]["sandbox_isolation"].startswith("NO SANDBOX")
    assert review["draft"]["markdown"].startswith("**UNSAFE: NO SANDBOX")
