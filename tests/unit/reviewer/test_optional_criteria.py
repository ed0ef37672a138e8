"""Optional criteria never reject on a concern: the default rubric's ``fail_on`` lists, the all_pass
rule's concerns, and the overall verdict, on evidence shaped as the tools write it."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.core.errors import RubricError
from reviewer.core.models import Evidence
from reviewer.drafting.offline import draft_offline
from reviewer.rubric import judge, load_rubric, overall
from tools.engine.registry import declared_criteria

REQUIRED = ("builds", "correctness", "generality", "numerics", "integrity")
TOOL_FOR = {"builds": "builds", "correctness": "correctness", "generality": "generality", "numerics": "numerics",
            "integrity": "integrity_runtime"}


def _rubric():
    return load_rubric(tools=declared_criteria())


def _passing_required() -> list[Evidence]:
    return [Evidence(id=f"{TOOL_FOR[c]}-1", tool=TOOL_FOR[c], criteria=[c], outcome="pass", summary=f"{c} ok")
            for c in REQUIRED]


def _ev(i: int, tool: str, crit: str, outcome: str, defect: str | None, summary: str = "") -> Evidence:
    return Evidence(id=f"{tool}-{i}", tool=tool, criteria=[crit], outcome=outcome, defect=defect,
                    summary=summary or f"{tool} {outcome} {defect}")


def _verdicts(items: list[Evidence]) -> tuple[dict[str, str], str, list]:
    crit = judge(_rubric(), items, {})
    return {c.id: c.verdict for c in crit}, overall(crit)[0], crit


def test_every_optional_criterion_of_the_default_rubric_lists_what_may_fail_it() -> None:
    rubric = _rubric()
    optional = [c for c in rubric.criteria if not c.required]
    assert {c.id for c in optional} == {"performance", "resources"}
    assert all(c.fail_on is not None for c in optional)
    assert rubric.spec("performance").fail_on == ["impossible_speed"]
    assert "register_spills" not in rubric.spec("resources").fail_on
    assert all(rubric.spec(c).fail_on is None for c in REQUIRED)  # every fail of a required criterion decides


def test_an_optional_criterion_without_fail_on_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "r.yaml"
    p.write_text("name: t\ncriteria:\n  - id: speed\n    title: S\n    question: q\n    required: false\n")
    with pytest.raises(RubricError, match="fail_on"):
        load_rubric(p)
    p.write_text("name: t\ncriteria:\n  - id: speed\n    title: S\n    question: q\n    required: false\n"
                 "    fail_on: []\n")
    assert load_rubric(p).spec("speed").fail_on == []


@pytest.mark.parametrize("defect", ["slower_than_reference", "claim_not_reproduced", "work_outside_timed_stream"])
def test_a_performance_concern_written_as_a_fail_does_not_reject(defect: str) -> None:
    """Even a tool that still writes the concern as ``fail`` cannot reject through it."""
    items = [*_passing_required(), _ev(1, "benchmark", "performance", "fail", defect, "measured speedup 0.6x")]
    verdicts, verdict, crit = _verdicts(items)
    assert verdicts["performance"] == "pass" and verdict == "accept"
    perf = next(c for c in crit if c.id == "performance")
    assert "1 concern(s): measured speedup 0.6x [benchmark-1]" in perf.summary


def test_impossible_speed_still_fails_performance_and_integrity() -> None:
    items = [*_passing_required(),
             Evidence(id="roofline-1", tool="roofline", criteria=["integrity", "performance"], outcome="fail",
                      defect="impossible_speed", summary="3.1 us is below the 12 us floor"),
             _ev(1, "benchmark", "performance", "pass", None)]
    verdicts, verdict, _ = _verdicts(items)
    assert verdicts["performance"] == "fail" and verdicts["integrity"] == "fail" and verdict == "reject"


@pytest.mark.parametrize("defect,fails", [("register_spills", False), ("occupancy_low", False),
                                          ("smem_over_limit", True), ("registers_over_limit", True),
                                          ("block_too_large", True), ("compile_error", True),
                                          ("sbuf_over_capacity", True)])
def test_resources_fails_only_when_the_kernel_cannot_launch(defect: str, fails: bool) -> None:
    items = [*_passing_required(), _ev(1, "resources", "resources", "fail", defect)]
    verdicts, verdict, _ = _verdicts(items)
    assert (verdicts["resources"], verdict) == (("fail", "reject") if fails else ("pass", "accept"))


def test_a_concern_does_not_assess_a_blocked_criterion() -> None:
    """performance requires correctness: a deciding fail is reported even then, a concern is not."""
    items = [*[e for e in _passing_required() if e.tool != "correctness"],
             _ev(1, "correctness", "correctness", "fail", "mismatch"),
             _ev(1, "benchmark", "performance", "fail", "slower_than_reference")]
    verdicts, _, _ = _verdicts(items)
    assert verdicts["performance"] == "unverified" and verdicts["correctness"] == "fail"


def test_the_draft_shows_a_concern_as_a_concern() -> None:
    items = [*_passing_required(),
             _ev(1, "benchmark", "performance", "pass", "slower_than_reference", "measured speedup 0.6x: slower"),
             _ev(2, "resources", "resources", "pass", "register_spills", "spills 20 B")]
    verdicts, verdict, crit = _verdicts(items)
    assert verdicts["performance"] == verdicts["resources"] == "pass" and verdict == "accept"
    draft = draft_offline(crit, items, [], verdict, "")
    perf = next(s for s in draft.sections if s.criterion == "performance")
    assert [c.text for c in perf.claims] == ["Concern: measured speedup 0.6x: slower"]
    res = next(s for s in draft.sections if s.criterion == "resources")
    assert [c.evidence for c in res.claims] == [["resources-2"]] and res.claims[0].text.startswith("Concern: ")
