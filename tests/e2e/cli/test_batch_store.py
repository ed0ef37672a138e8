"""`kreview batch` reviews join the one run store: `kreview runs` and `kreview show` find them, and the
results table has a header. One cheap real review (builds only)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import invoke
from tests.kernelfiles import KERNELS, materialize


@pytest.mark.slow
def test_batch_runs_are_listed_and_shown_like_any_review(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    sub = materialize(KERNELS / "spine" / "good_triton.py", tmp_path / "subs" / "relu")
    runs = tmp_path / "runs"
    res = invoke("batch", str(sub.parent), "--only", "builds", "--runs-dir", str(runs), "--quiet")
    assert res.exit_code == 0, res.output
    header, row = res.stdout.splitlines()[:2]
    assert header.split()[:2] == ["verdict", "submission"]
    run_id = row.split()[-1]
    listed = json.loads(invoke("runs", "--runs-dir", str(runs), "--format", "json").stdout)
    assert [r["run_id"] for r in listed] == [run_id]
    shown = invoke("show", run_id, "--runs-dir", str(runs), "--format", "json")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["run_id"] == run_id
    assert not list(tmp_path.glob(".kreview/batches/*/runs/*"))  # no second, hidden store
