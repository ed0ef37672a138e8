"""The task audit on tasks written in the shape of public reports (tests/data/tasks, each reference's
``Audit:`` line says what must be found), and in a review: a task whose check kreview's own judgement
cannot tell from an impostor leaves correctness unverified (needs_human), never failed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import tools.engine.registry as registry
from reviewer.api import start_review
from reviewer.audit import audit_one, find_tasks
from reviewer.core.config import ReviewConfig
from reviewer.core.limits import SandboxLimits
from reviewer.core.task import TaskAudit
from tests.conftest import DATA
from tools.task_audit import TaskAuditTool

TASKS = DATA / "tasks"
ALL = sorted(p.name for p in TASKS.iterdir() if (p / "reference.py").exists())


def _expected(task: Path) -> tuple[bool, list[str]]:
    line = re.search(r"^Audit: (.*)$", (task / "reference.py").read_text(), re.M)
    assert line, f"{task}: no 'Audit:' line"
    verdict, _, kinds = line.group(1).partition(";")
    return verdict.strip() == "degenerate", [k.strip() for k in kinds.split(",") if k.strip()]


def _has(result: TaskAudit, want: str) -> bool:
    kind, _, impostor = want.partition("=")
    return any(f.kind == kind and (not impostor or ((f.impostor or "").startswith(impostor) and f.passes_task_check))
               for f in result.findings)


@pytest.mark.parametrize("name", ALL)
def test_task_gets_its_audit(name: str, config: ReviewConfig) -> None:
    task = TASKS / name
    degenerate, kinds = _expected(task)
    if name == "hanging_reference":
        config = config.model_copy(update={"limits": SandboxLimits(call_timeout_s=5.0)})
    [sub] = find_tasks([task])
    result = audit_one(sub, config, seed=1234)
    described = [(f.kind, f.impostor) for f in result.findings]
    assert result.degenerate is degenerate, described
    for want in kinds:
        assert _has(result, want), (want, described)
    if not degenerate:  # no false positives on a sound task: not even a note
        assert result.findings == [], described
        assert result.impostors and not any(i.passes_task_check or i.passes_own_check for i in result.impostors)


def test_a_review_rests_correctness_on_no_check_an_impostor_passes(config: ReviewConfig, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """relu on torch.rand with a correct kernel: the copy impostor passes kreview's own check too, so the
    correct kernel's correctness is unverified (needs_human), and the review carries the Task section."""
    sub = tmp_path / "relu"
    sub.mkdir()
    shutil.copy(TASKS / "relu_rand" / "reference.py", sub / "reference.py")
    (sub / "submission.py").write_text("import torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n"
                                       "    def forward(self, x):\n        return torch.clamp_min(x, 0.0)\n")
    table = {**registry.tools(), "task_audit": TaskAuditTool}  # registered here until the entry point is installed
    monkeypatch.setattr(registry, "tools", lambda: table)
    review = start_review(sub, config.model_copy(update={"only": ["builds", "correctness", "task_audit"], "seeds": 2}))
    crit = {c.id: c for c in review.criteria}
    assert crit["builds"].verdict == "pass"
    assert crit["correctness"].verdict == "unverified", crit["correctness"].summary
    assert review.overall == "needs_human"
    assert review.task is not None and review.task.degenerate
    assert any(f.impostor == "input 0 passed through" and f.passes_own_check for f in review.task.findings)
    fooled = [e for e in review.evidence if e.defect == "impostor_passes_own_check"]
    assert len(fooled) == 1 and fooled[0].outcome == "unverified" and fooled[0].rerun
    assert "## Task" in review.draft.markdown and "input 0 passed through" in review.draft.markdown
    assert '"task"' in review.model_dump_json() and not any(e.outcome == "fail" for e in review.evidence)
