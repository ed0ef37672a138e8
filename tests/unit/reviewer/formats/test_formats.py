"""The CI formats on a hand-made review: the SARIF kind/level rule, JUnit verdict mapping, annotation
escaping, and schema rejections (so the schemas in tests/data/schemas can fail)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import xmlschema

from reviewer.formats.github_annotations import annotations
from reviewer.formats.junit import to_junit
from reviewer.formats.sarif import to_sarif
from reviewer.core.models import Review
from tests.conftest import DATA

SCHEMAS = DATA / "schemas"
SARIF = jsonschema.Draft7Validator(json.loads((SCHEMAS / "sarif-2.1.0-subset.schema.json").read_text()))
JUNIT = xmlschema.XMLSchema(SCHEMAS / "junit.xsd")


def _review(tmp_path: Path) -> Review:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "submission.py").write_text("x = 1\n" * 20)
    ev = lambda i, tool, crit, out, **kw: {"id": i, "tool": tool, "criteria": [crit], "outcome": out,  # noqa: E731
                                           "summary": f"{i} says {out}", "rerun": f"kreview rerun sub --tool {tool}",
                                           **kw}
    return Review.model_validate({
        "run_id": "r1", "status": "awaiting_signoff", "overall": "reject", "overall_reason": "failed: correctness",
        "seed": 7, "created_at": "2026-12-03T04:00:00+00:00", "duration_s": 12.5,
        "submission": {"root": str(tmp_path / "sub"), "format": "kernelbench", "framework": "triton",
                       "reference_file": "reference.py", "submission_file": "submission.py", "name": "sub"},
        "criteria": [
            {"id": "builds", "title": "Builds", "verdict": "pass", "summary": "ok", "evidence": ["builds-1"]},
            {"id": "correctness", "title": "Correctness", "verdict": "fail", "summary": "50%, of \"x\": wrong\nline 2",
             "evidence": ["correctness-1", "correctness-2"]},
            {"id": "generality", "title": "Generality", "verdict": "unverified", "summary": "not run",
             "evidence": []},
            {"id": "performance", "title": "Performance", "verdict": "unverified", "summary": "no GPU",
             "evidence": [], "required": False},
            {"id": "integrity", "title": "Integrity", "verdict": "not_applicable", "summary": "n/a", "evidence": []},
        ],
        "evidence": [ev("builds-1", "builds", "builds", "pass"), ev("correctness-1", "correctness", "correctness", "pass"),
                     ev("correctness-2", "correctness", "correctness", "fail",
                        spans=[{"file": "submission.py", "start_line": 4, "end_line": 6}])],
        "findings": [{"id": "f1", "category": "oob", "severity": "error", "message": "masked load missing",
                      "spans": [{"file": "submission.py", "start_line": 9, "end_line": 9}],
                      "confirmed_by": ["correctness-2"]},
                     {"id": "f2", "origin": "llm", "category": "style", "message": "unconfirmed"}],
    })


def test_sarif_maps_verdicts_and_validates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    doc = to_sarif(_review(tmp_path))
    SARIF.validate(doc)
    res = {r["ruleId"]: r for r in doc["runs"][0]["results"]}
    assert (res["criterion/correctness"]["kind"], res["criterion/correctness"]["level"]) == ("fail", "error")
    assert res["criterion/correctness"]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "sub/submission.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 4, "endLine": 6}}
    assert res["criterion/correctness"]["properties"]["evidence"] == ["correctness-2"]  # the failing item only
    assert (res["criterion/generality"]["kind"], res["criterion/generality"]["level"]) == ("review", "none")
    assert res["criterion/builds"]["kind"] == "pass" and res["criterion/integrity"]["kind"] == "notApplicable"
    assert (res["finding/oob"]["kind"], res["finding/oob"]["level"]) == ("fail", "error")
    assert res["finding/style"]["kind"] == "review"  # an unconfirmed finding is for a human, not a failure
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in res.values())


def test_sarif_schema_rejects_what_the_standard_rejects(tmp_path: Path) -> None:
    doc = to_sarif(_review(tmp_path))
    bad = json.loads(json.dumps(doc))
    bad["runs"][0]["results"][2]["level"] = "warning"  # generality is kind=review: level must be none
    with pytest.raises(jsonschema.ValidationError):
        SARIF.validate(bad)
    bad = json.loads(json.dumps(doc))
    bad["runs"][0]["results"][0]["severity"] = "high"  # not a SARIF property
    with pytest.raises(jsonschema.ValidationError):
        SARIF.validate(bad)
    bad = json.loads(json.dumps(doc))
    bad["version"] = "2.0.0"
    with pytest.raises(jsonschema.ValidationError):
        SARIF.validate(bad)


def test_junit_maps_verdicts_and_validates(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    xml = to_junit(_review(tmp_path))
    JUNIT.validate(xml)
    suite = ET.fromstring(xml).find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("5", "1", "3")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["correctness"].find("failure").get("message").startswith("50%")
    assert "kreview rerun sub --tool correctness" in cases["correctness"].find("system-out").text
    assert cases["performance (optional)"].find("skipped").get("message") == "unverified: no GPU"
    assert cases["builds"].find("failure") is None and cases["builds"].find("skipped") is None
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        JUNIT.validate(xml.replace('tests="5"', 'tests="five"'))


def test_github_annotations_are_escaped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    lines = annotations(_review(tmp_path))
    assert lines[0] == ("::error file=sub/submission.py,line=4,endLine=6,title=kreview sub%3A Correctness fail::"
                        "50%25, of \"x\": wrong%0Aline 2%0Arerun: correctness-2: kreview rerun sub --tool correctness")
    assert lines[1].startswith("::warning file=sub/submission.py,title=kreview sub%3A Generality unverified::")
    assert not any("Performance" in ln for ln in lines)  # optional and unverified: no annotation
    assert lines[2].startswith("::error file=sub/submission.py,line=9,title=kreview finding%3A oob::")
    assert len(lines) == 3  # the unconfirmed finding is not annotated


def test_the_task_audit_is_noted_in_sarif_and_junit(tmp_path: Path) -> None:
    from reviewer.core.task import TaskAudit, TaskFinding

    task = TaskAudit(path="t", task_check="allclose", findings=[
        TaskFinding(kind="constant_output", detail="0 everywhere", degenerate=True)]).finished()
    plain = _review(tmp_path)
    assert "task" not in to_sarif(plain)["runs"][0]["properties"]
    review = plain.model_copy(update={"task": task})
    doc = to_sarif(review)
    SARIF.validate(doc)
    assert doc["runs"][0]["properties"]["task"] == {"degenerate": True, "check": "allclose"}
    xml = to_junit(review)
    JUNIT.validate(xml)
    assert '<property name="task_degenerate" value="true"' in xml
