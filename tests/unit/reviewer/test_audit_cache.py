"""The audit cache (reviewer/audit_cache.py): the key moves with everything an audit depends on, an
entry is served only under the very key it was stored with, and what may come from the machine is
never kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import reviewer.audit_cache as ac
import tools.engine.code_version as cv
from reviewer.audit import find_tasks
from reviewer.core.config import ReviewConfig
from reviewer.core.submission import Submission
from reviewer.core.task import TaskAudit, TaskFinding
from tools.engine.runsetup import DeviceInfo

CPU = DeviceInfo(kind="cpu", name="cpu (no CUDA device)")
TASK = '''import torch
import torch.nn as nn

dim = {dim}


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x){extra}


def get_inputs():
    return [torch.randn(4, dim)]


def get_init_inputs():
    return []
'''


def _level(root: Path) -> Path:
    root.mkdir()
    (root / "1_relu.py").write_text(TASK.format(dim=64, extra=""))
    (root / "2_relu.py").write_text(TASK.format(dim=32, extra=""))
    (root / "notes.md").write_text("shared notes\n")
    return root


def _body(task: Submission, tasks: list[Submission], *, seed: int = 0, config: ReviewConfig | None = None,
          device: DeviceInfo = CPU) -> dict:
    siblings = {t.reference_file for t in tasks if t.root == task.root} - {task.reference_file}
    return ac.key_body(task, siblings, seed=seed, options=(config or ReviewConfig()).tool_options().model_dump(
        mode="json"), device=device)


@pytest.fixture
def level(tmp_path: Path) -> Path:
    return _level(tmp_path / "level1")


def _key(level: Path, **kw: object) -> str:
    tasks = find_tasks([level])
    return ac.key_of(_body(tasks[0], tasks, **kw))  # type: ignore[arg-type]


def test_the_key_is_stable_and_moves_with_each_part(level: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = _key(level)
    assert _key(level) == base
    assert _key(level, seed=1) != base
    assert _key(level, config=ReviewConfig(limits={"call_timeout_s": 7})) != base
    assert _key(level, device=DeviceInfo(kind="cuda", name="NVIDIA H100", capability=(9, 0))) != base
    real = ac.library_versions()
    monkeypatch.setattr(ac, "library_versions", lambda: {**real, "torch": "9.9"})
    assert _key(level) != base
    monkeypatch.undo()
    assert _key(level) == base
    monkeypatch.setattr(ac, "code_version", lambda: "0.1.0+another")
    assert _key(level) != base


def test_the_reference_and_the_folder_s_other_files_are_in_the_key(level: Path) -> None:
    base = _key(level)
    (level / "1_relu.py").write_text(TASK.format(dim=64, extra=" * 1.0"))
    edited = _key(level)
    assert edited != base
    (level / "notes.md").write_text("other notes\n")  # a helper or data file the child is given
    assert _key(level) != edited


def test_a_sibling_task_is_in_the_key_only_where_the_reference_names_it(level: Path) -> None:
    base = _key(level)
    (level / "2_relu.py").write_text(TASK.format(dim=48, extra=""))
    assert _key(level) == base  # editing one task of a level keeps the others' entries
    (level / "1_relu.py").write_text("# uses 2_relu's sizes\n" + TASK.format(dim=64, extra=""))
    named = _key(level)
    (level / "2_relu.py").write_text(TASK.format(dim=40, extra=""))
    assert _key(level) != named


def test_code_version_moves_with_any_source_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for pkg in cv._PACKAGES:
        (tmp_path / pkg / "sub").mkdir(parents=True)
        (tmp_path / pkg / "sub" / "a.py").write_text("X = 1\n")
    monkeypatch.setattr(cv, "_PACKAGE_ROOT", tmp_path)
    ac.code_version.cache_clear()
    try:
        first = ac.code_version()
        ac.code_version.cache_clear()
        assert ac.code_version() == first
        (tmp_path / "tools" / "sub" / "a.py").write_text("X = 2\n")
        ac.code_version.cache_clear()
        assert ac.code_version() != first
    finally:
        ac.code_version.cache_clear()


def _audit(path: str, *kinds: str) -> TaskAudit:
    return TaskAudit(path=path, format="kernelbench", task_check="allclose", findings=[
        TaskFinding(kind=k, detail=f"{k} detail", degenerate=True, numbers={"max": 1.5e-7, "inf": float("inf")})
        for k in kinds]).finished()


def test_an_entry_is_served_only_under_its_own_key(level: Path, tmp_path: Path) -> None:
    cache = ac.AuditCache(tmp_path / "cache")
    tasks = find_tasks([level])
    body = _body(tasks[0], tasks)
    stored = _audit(str(level / "1_relu.py"), "impostor_accepted")
    cache.put(body, stored)
    hit = cache.get(body)
    assert hit is not None and hit.to_json() == stored.to_json()
    # stale: the reference edited after the entry was written
    (level / "1_relu.py").write_text(TASK.format(dim=64, extra=" + 0.0"))
    tasks = find_tasks([level])
    assert cache.get(_body(tasks[0], tasks)) is None
    assert cache.get(_body(tasks[0], tasks, seed=3)) is None


def test_a_corrupt_or_forged_entry_is_a_miss(level: Path, tmp_path: Path) -> None:
    cache = ac.AuditCache(tmp_path / "cache")
    tasks = find_tasks([level])
    body = _body(tasks[0], tasks)
    cache.put(body, _audit("x"))
    path = cache._path(ac.key_of(body))
    entry = json.loads(path.read_text())
    entry["key"]["seed"] = 99  # an entry whose stored key is not the one its name says
    path.write_text(json.dumps(entry))
    assert cache.get(body) is None
    path.write_text("{not json")
    assert cache.get(body) is None


@pytest.mark.parametrize("kind", ["reference_hang", "reference_failed", "reference_probes_hang", "audit_error",
                                  "reference_not_run"])
def test_what_may_come_from_the_machine_is_not_kept(level: Path, tmp_path: Path, kind: str) -> None:
    cache = ac.AuditCache(tmp_path / "cache")
    tasks = find_tasks([level])
    body = _body(tasks[0], tasks)
    cache.put(body, _audit("x", kind))
    assert cache.get(body) is None
    cache.put(body, _audit("x", "constant_output"))
    assert cache.get(body) is not None
