"""The workbench's review page shows the task audit: a Task block saying degenerate or sound, with
its findings; open when the task is degenerate, collapsed when sound; every text escaped. The run is
a review.json written here (no review is run)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient

from reviewer.core.task import TaskAudit, TaskFinding
from reviewer.web.app import create_app
from tests.unit.reviewer.pr.test_comments import _review

RUN = "20260101-000000-abcdef"


def _page(tmp_path: Path, task: TaskAudit | None) -> str:
    run = tmp_path / "runs" / RUN
    run.mkdir(parents=True)
    review = _review().model_copy(update={"task": task, "run_dir": str(run)})
    (run / "review.json").write_text(review.model_dump_json())
    client = TestClient(create_app(tmp_path / "runs"), base_url="http://127.0.0.1:8765")
    r = client.get(f"/runs/{RUN}")
    assert r.status_code == 200, r.text
    return r.text


def _task_details(html: str) -> str:
    m = re.search(r'<section id="task">\s*(<details[^>]*>)', html)
    assert m, "the page has a Task block"
    return m.group(1)


def test_a_degenerate_task_is_open_with_its_findings(tmp_path: Path) -> None:
    task = TaskAudit(path="k/softmax", task_check="allclose(atol=rtol=1e-2)", findings=[
        TaskFinding(kind="impostor_accepted", impostor="zeros", passes_task_check=True, degenerate=True,
                    detail="zeros: the task's check accepts it", covered_by="correctness tolerance"),
        TaskFinding(kind="size1_dim", detail="dimension 1 has size 1"),
    ]).finished()
    html = _page(tmp_path, task)
    assert " open" in _task_details(html)
    assert re.search(r'id="task-verdict">degenerate<', html)
    items = re.findall(r"<li>(.*?)</li>", html.split('id="task-findings"')[1].split("</ul>")[0], re.S)
    assert len(items) == 2
    assert "impostor_accepted" in items[0] and "zeros: the task&#39;s check accepts it" in items[0]
    assert "covered by: correctness tolerance" in items[0] and ">degenerate<" in items[0]
    assert "size1_dim" in items[1] and ">note<" in items[1]
    assert '<a href="#task">task</a>' in html


def test_a_sound_task_is_collapsed(tmp_path: Path) -> None:
    html = _page(tmp_path, TaskAudit(path="k/gelu", task_check="allclose(atol=rtol=1e-4)").finished())
    assert " open" not in _task_details(html)
    assert re.search(r'id="task-verdict">sound<', html)
    assert 'id="task-findings"' not in html


def test_no_audit_no_block(tmp_path: Path) -> None:
    html = _page(tmp_path, None)
    assert '<section id="task">' not in html and 'href="#task"' not in html


def test_task_text_is_escaped(tmp_path: Path) -> None:
    task = TaskAudit(path="k/x", task_check="<b>check</b>", findings=[
        TaskFinding(kind="reference_failed", degenerate=True, detail="<script>window.__pwned = 1</script>",
                    covered_by="<img src=x onerror=alert(1)>")]).finished()
    html = _page(tmp_path, task)
    assert "<script>window.__pwned" not in html and "<img src=x" not in html and "<b>check" not in html
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in html


def test_the_served_calibration_lists_degenerate_tasks_and_links_their_runs(tmp_path: Path) -> None:
    from reviewer.calibrate.report import summarize
    from reviewer.calibrate.runner import CaseResult, CaseTask
    from tests.unit.reviewer.calibrate.test_degenerate_tasks import SOFTMAX, _case

    run = tmp_path / "cal" / "runs" / RUN  # a calibration's run, outside the workbench's runs folder
    run.mkdir(parents=True)
    review = _review().model_copy(update={"task": SOFTMAX, "run_dir": str(run)})
    (run / "review.json").write_text(review.model_dump_json())
    cal = summarize(Path("/set"), [_case("softmax_wide")], [], [
        CaseResult(name="softmax_wide", overall="accept", criteria={"correctness": "pass"}, run_dir=str(run),
                   task=CaseTask.of(SOFTMAX))], criteria=["correctness"])
    (tmp_path / "cal" / "calibration.json").write_text(cal.model_dump_json())
    (tmp_path / "runs").mkdir()
    app = create_app(tmp_path / "runs", calibrations=[tmp_path / "cal"])
    client = TestClient(app, base_url="http://127.0.0.1:8765")
    html = client.get("/calibrations/0").text
    table = html.split('id="degenerate-tasks"')[1].split("</table>")[0]
    assert f'<a href="/runs/{RUN}?cal=0">softmax_wide</a>' in table
    page = client.get(f"/runs/{RUN}?cal=0")
    assert page.status_code == 200 and 'id="task-verdict">degenerate<' in page.text
