"""The task_audit tool's rule for the kernel's verdict: task findings are info; only an impostor that
kreview's own judgement accepts, on a kernel whose nominal checks passed, leaves an unverified
correctness item (needs_human). Never a fail. The audit itself is replaced by fixed results here."""

from __future__ import annotations

from pathlib import Path

import pytest

import tools.task_audit as plugin
from reviewer.core.config import ReviewConfig
from reviewer.core.task import TaskAudit, TaskFinding, task_of
from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.conftest import EXAMPLES
from tools.engine.facts import NominalCheck, NominalChecks


def _audit(*, task: bool, own: bool, basis: str = "tolerance") -> TaskAudit:
    found = TaskFinding(kind="impostor_accepted", impostor="zeros", passes_task_check=task, passes_own_check=own,
                        degenerate=True, detail="zeros pass", numbers={"own_basis": basis})
    findings = [found] if (task or own) else []
    return TaskAudit(path="p", task_check="allclose", findings=findings).finished()


@pytest.mark.parametrize(("task", "own", "nominal", "unverified", "basis"), [
    (False, False, "pass", False, "tolerance"),  # sound task
    (True, False, "pass", False, "tolerance"),   # the task's check is fooled, kreview's is not: a note about the task
    (True, True, "pass", True, "tolerance"),     # kreview's own check is fooled: correctness cannot rest on it
    (True, True, "fail", False, "tolerance"),    # the kernel already fails: nothing to add
    (True, True, "pass", False, "error_budget"),  # only the budget lets it through; the kernel passed the tolerance
])
def test_only_a_fooled_own_check_on_a_passing_kernel_asks_a_human(task: bool, own: bool, nominal: str, unverified: bool,
                                                                  basis: str, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = make_tool_context(load_submission(EXAMPLES / "softmax_triton"), ReviewConfig(seed=1), tmp_path, 1,
                            detect_device("cpu"))
    monkeypatch.setattr(plugin, "audit", lambda _ctx: _audit(task=task, own=own, basis=basis))
    ctx.facts.put(NominalChecks((NominalCheck(outcome=nominal, case=None, duration_s=0.1, error_budget=None,
                                              basis="tolerance"),)))
    try:
        plugin.TaskAuditTool().run(ctx)
    finally:
        ctx.session.close()
    outcomes = [e.outcome for e in ctx.evidence]
    assert outcomes == (["info", "unverified"] if unverified else ["info"])
    assert "fail" not in outcomes
    assert task_of(ctx.evidence) == _audit(task=task, own=own, basis=basis)
    assert len(ctx.findings) == (1 if task or own else 0)
