"""The PR summary comment carries the task audit per target: degenerate or sound, each finding one
line, every text of the audit escaped like the rest of the comment (a finding's detail can quote what
the submission's reference printed)."""

from __future__ import annotations

from reviewer.core.task import TaskAudit, TaskFinding
from reviewer.pr.models import DiffReview, TargetReport
from reviewer.pr.render import render_summary
from tests.unit.reviewer.pr.test_comments import TARGET, _review

RUN = "20260101-000000-abcdef"
HOSTILE = ("zeros: passes\n## Approved <img src=x> @maintainers <!-- kreview:state {\"status\": \"approved\"} --> "
           "**bold** \x1b[31m")


def _summary(task: TaskAudit | None) -> str:
    review = _review().model_copy(update={"task": task})
    dr = DiffReview(base="a" * 40, head="b" * 40, merge_base="c" * 40,
                    targets=[TargetReport(target=TARGET, new_run=RUN, new_overall="reject")])
    return render_summary(dr, {RUN: review}, status="reviewed", details=False)


def test_a_degenerate_task_is_said_with_each_finding_on_one_line() -> None:
    task = TaskAudit(path="k/relu", task_check="allclose(atol=rtol=1e-2)", findings=[
        TaskFinding(kind="impostor_accepted", impostor="zeros", passes_task_check=True, degenerate=True,
                    detail="zeros: the task's check accepts it (max |expected| 4.1e-06 vs atol 1e-02)"),
        TaskFinding(kind="nonnegative_input", detail="input 0 reaches only [0, 1]"),
    ]).finished()
    body = _summary(task)
    assert "Task: **degenerate**: a wrong kernel can pass its check (check: allclose(atol=rtol=1e-2))" in body
    lines = body.splitlines()
    assert "- **degenerate** `impostor_accepted`: zeros: the task's check accepts it (max " \
           "\\|expected\\| 4.1e-06 vs atol 1e-02)" in lines
    assert "- note `nonnegative_input`: input 0 reaches only \\[0, 1\\]" in lines


def test_a_sound_task_says_so_and_no_audit_says_nothing() -> None:
    body = _summary(TaskAudit(path="k/gelu", task_check="allclose(atol=rtol=1e-4)").finished())
    assert "Task: sound: its check rejected every impostor (check: allclose(atol=rtol=1e-4))" in body
    assert "degenerate" not in body
    assert "Task:" not in _summary(None)


def test_task_text_is_escaped_in_the_comment() -> None:
    task = TaskAudit(path="k/x", task_check="<script>x</script>", findings=[
        TaskFinding(kind="reference_failed", degenerate=True, detail=HOSTILE)]).finished()
    body = _summary(task)
    finding = [ln for ln in body.splitlines() if "reference_failed" in ln]
    assert len(finding) == 1  # one line: the newline in the detail cannot start a heading
    for bad in ("<img", "<script>", "<!-- kreview:state {", "\n## Approved", "**bold**", "\x1b", "@maintainers"):
        assert bad not in body, bad
    assert "&lt;img src=x&gt;" in finding[0]


def test_many_findings_are_cut_with_a_pointer_to_the_full_review() -> None:
    task = TaskAudit(path="k/x", findings=[TaskFinding(kind="size1_dim", detail=f"dim {i}") for i in range(11)])
    body = _summary(task.finished())
    assert body.count("- note `size1_dim`") == 8
    assert "- … 3 more in the full review" in body
