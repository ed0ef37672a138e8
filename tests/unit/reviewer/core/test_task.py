"""The task audit's data: ``degenerate`` follows the findings, a review's evidence carries the audit,
and the Markdown (terminal text) has a Task section that says it is about the task, not the kernel."""

from __future__ import annotations

from reviewer.core.models import Evidence
from reviewer.core.task import RESULT_KEY, TaskAudit, TaskFinding, task_of
from reviewer.drafting.task_section import task_lines


def _audit(*degenerate: bool) -> TaskAudit:
    return TaskAudit(path="t", task_check="allclose", findings=[
        TaskFinding(kind=f"k{i}", detail=f"d{i}", degenerate=d) for i, d in enumerate(degenerate)]).finished()


def test_degenerate_is_any_degenerate_finding() -> None:
    assert _audit(False, True).degenerate
    assert not _audit(False, False).degenerate
    assert not _audit().degenerate
    assert _audit(True).to_json()["degenerate"] is True


def test_the_audit_is_found_in_a_reviews_evidence() -> None:
    audit = _audit(True)
    items = [Evidence(id="a-1", tool="a", criteria=[], outcome="pass", summary="x"),
             Evidence(id="t-1", tool="t", criteria=[], outcome="info", summary="y",
                      result={RESULT_KEY: audit.to_json()})]
    assert task_of(items) == audit
    assert task_of(items[:1]) is None


def test_task_section_names_each_finding() -> None:
    text = "\n".join(task_lines(_audit(True, False)))
    assert text.startswith("## Task") and "degenerate" in text and "never fail the kernel" in text
    assert "**degenerate** `k0`: d0" in text and "note `k1`: d1" in text
    assert task_lines(None) == []
    assert "sound" in "\n".join(task_lines(_audit()))
