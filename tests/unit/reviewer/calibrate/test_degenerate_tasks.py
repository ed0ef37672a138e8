"""Calibration lists the tasks of a set that are degenerate: each case's review carries its task audit
(reviewer/core/task.py); the case result keeps it in brief and the summary (JSON, Markdown, HTML)
names the degenerate ones. Built from Reviews and CaseResults here; no review is run."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from reviewer.calibrate import runner
from reviewer.calibrate.evalset import EvalCase, Grades
from reviewer.calibrate.report import summarize, to_html, to_markdown
from reviewer.calibrate.runner import CaseResult, CaseTask
from reviewer.core.config import ReviewConfig
from reviewer.core.task import TaskAudit, TaskFinding
from tests.unit.reviewer.pr.test_comments import _review

SOFTMAX = TaskAudit(path="/set/softmax_wide", task_check="allclose(atol=rtol=1e-2)", findings=[
    TaskFinding(kind="impostor_accepted", impostor="zeros", passes_task_check=True, degenerate=True,
                detail="zeros pass"),
    TaskFinding(kind="constant_output", degenerate=True, detail="constant"),
    TaskFinding(kind="size1_dim", detail="a note, not degenerate"),
]).finished()
GELU = TaskAudit(path="/set/gelu", task_check="allclose(atol=rtol=1e-4)",
                 findings=[TaskFinding(kind="nonnegative_input", detail="a note")]).finished()


def _case(name: str) -> EvalCase:
    grades = Grades(criteria={"correctness": "pass"}, overall="accept", defect="none", how_to_see="run it",
                    grader="test", date=date(2026, 12, 2))
    return EvalCase(name=name, path=Path(f"/set/{name}"), grades=grades)


def test_the_case_result_keeps_the_review_task_audit_in_brief(monkeypatch) -> None:
    import reviewer.api

    review = _review().model_copy(update={"task": SOFTMAX, "run_dir": "/runs/r1"})
    monkeypatch.setattr(reviewer.api, "start_review", lambda path, config: review)
    data = runner.review_case("/set/softmax_wide", "softmax_wide", ReviewConfig(signoff=False).model_dump_json(),
                              False, False)
    res = CaseResult.model_validate({k: v for k, v in data.items() if k != "archive"})
    assert res.error is None
    assert res.task == CaseTask(path="/set/softmax_wide", degenerate=True,
                                findings=["impostor_accepted (zeros)", "constant_output"])
    assert CaseTask.of(GELU) == CaseTask(path="/set/gelu", degenerate=False, findings=[])
    assert CaseTask.of(None) is None


def test_the_summary_lists_the_degenerate_tasks_in_json_markdown_and_html() -> None:
    cases = [_case("softmax_wide"), _case("gelu"), _case("unaudited")]
    results = [
        CaseResult(name="softmax_wide", overall="accept", criteria={"correctness": "pass"}, run_dir="/runs/r1",
                   task=CaseTask.of(SOFTMAX)),
        CaseResult(name="gelu", overall="accept", criteria={"correctness": "pass"}, task=CaseTask.of(GELU)),
        CaseResult(name="unaudited", overall="accept", criteria={"correctness": "pass"}),
    ]
    cal = summarize(Path("/set"), cases, [], results, criteria=["correctness"])
    data = json.loads(cal.model_dump_json())
    assert data["tasks_audited"] == 2
    assert data["degenerate_tasks"] == [{"case": "softmax_wide", "path": "/set/softmax_wide", "run_dir": "/runs/r1",
                                         "findings": ["impostor_accepted (zeros)", "constant_output"]}]
    md = to_markdown(cal)
    assert "1 of 2 audited tasks are degenerate:" in md
    assert "- softmax_wide: impostor_accepted (zeros), constant_output (/set/softmax_wide)" in md.splitlines()
    assert "- gelu" not in md
    html = to_html(cal)
    assert "1 of 2 audited tasks are degenerate" in html
    table = html.split('id="degenerate-tasks"')[1].split("</table>")[0]
    assert "softmax_wide" in table and "impostor_accepted (zeros), constant_output" in table and "gelu" not in table


def test_a_set_with_only_sound_tasks_says_none_is_degenerate_and_no_audit_says_nothing() -> None:
    cases = [_case("gelu")]
    sound = summarize(Path("/set"), cases, [], [CaseResult(name="gelu", overall="accept", task=CaseTask.of(GELU))],
                      criteria=["correctness"])
    assert sound.degenerate_tasks == [] and "0 of 1 audited tasks are degenerate." in to_markdown(sound)
    assert 'id="degenerate-tasks"' not in to_html(sound)
    none = summarize(Path("/set"), cases, [], [CaseResult(name="gelu", overall="accept")], criteria=["correctness"])
    assert none.tasks_audited == 0 and "Degenerate tasks" not in to_markdown(none) + to_html(none)
