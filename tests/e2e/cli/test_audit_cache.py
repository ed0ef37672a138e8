"""``kreview audit`` with its cache and several tasks at once: a rerun is served from the cache with
the very findings of an uncached audit, and the findings do not depend on the order of the tasks or
on how many run at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import DATA, ROOT

TASKS = [DATA / "tasks" / name for name in ("relu_rand", "sum_size1_dim", "gelu_randn")]


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg-cache"))
    return subprocess.run([sys.executable, "-m", "reviewer", "audit", *args, "--format", "json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900, env=env)


def _by_path(res: subprocess.CompletedProcess[str]) -> dict[str, dict]:
    return {t["path"]: t for t in json.loads(res.stdout)["tasks"]}


def test_cached_rerun_and_other_order_give_the_same_findings(tmp_path: Path) -> None:
    cache = tmp_path / "audit-cache"
    first = _run(tmp_path, *map(str, TASKS), "--jobs", "2", "--cache-dir", str(cache))
    assert first.returncode == 1, first.stderr  # relu on rand and the size-1 sum are degenerate
    assert first.stderr.count("auditing") == 3 and "cached" not in first.stderr
    tasks = _by_path(first)
    assert [Path(p).name for p in tasks] == [t.name for t in TASKS]  # the order given, whatever finished first
    assert tasks[str(TASKS[0])]["degenerate"] and not tasks[str(TASKS[2])]["degenerate"]
    assert any(f["kind"] == "impostor_accepted" for f in tasks[str(TASKS[0])]["findings"])
    assert len(list(cache.rglob("*.json"))) == 3

    again = _run(tmp_path, *map(str, TASKS), "--jobs", "2", "--cache-dir", str(cache))
    assert again.returncode == 1 and again.stdout == first.stdout
    assert again.stderr.count("cached") == 3 and "auditing" not in again.stderr

    # uncached, one at a time, the other way round (a degenerate task and a sound one: each reads the
    # other's leftovers if anything leaks between audits): the same findings for each task
    pair = [TASKS[2], TASKS[0]]
    other = _run(tmp_path, *map(str, pair), "--jobs", "1", "--no-cache")
    assert other.returncode == 1, other.stderr
    assert other.stderr.count("auditing") == 2
    assert [Path(p).name for p in _by_path(other)] == [t.name for t in pair]
    assert _by_path(other) == {str(t): tasks[str(t)] for t in pair}
    assert not (tmp_path / "xdg-cache").exists()  # --no-cache writes nothing, not even the default folder
