"""Rubric loading and the all_pass rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.core.errors import RubricError
from reviewer.core.models import Evidence
from reviewer.rubric import judge, load_rubric, overall
from tools.engine.registry import declared_criteria
from tools.engine.tool import Tool, ToolContext

# What the tools of these tests declare (Tool.criteria): the rubric learns from it which tools feed a criterion.
TOOLS = {"generality": ("generality",), "memcheck": ("generality",), "numerics": ("numerics",)}


def _ev(i: int, tool: str, outcome: str, crit: str = "generality") -> Evidence:
    return Evidence(id=f"{tool}-{i}", tool=tool, criteria=[crit], outcome=outcome, summary=f"{tool} {outcome}")


def _rubric(tmp_path: Path, extra: str = "") -> Path:
    p = tmp_path / "r.yaml"
    p.write_text("name: t\ncriteria:\n  - id: generality\n    title: G\n    question: q\n" + extra
                 + "  - id: numerics\n    title: N\n    question: q\n")
    return p


def test_supporting_tool_alone_cannot_pass(tmp_path: Path) -> None:
    r = load_rubric(_rubric(tmp_path, "    pass_requires: [generality]\n"), tools=TOOLS)
    only_support = judge(r, [_ev(1, "memcheck", "pass")], {})[0]
    assert only_support.verdict == "unverified" and "generality" in only_support.summary
    both = judge(r, [_ev(1, "memcheck", "pass"), _ev(1, "generality", "pass")], {})[0]
    assert both.verdict == "pass"
    support_fails = judge(r, [_ev(1, "memcheck", "fail"), _ev(1, "generality", "pass")], {})[0]
    assert support_fails.verdict == "fail"


def test_pass_requires_must_name_tools_that_declare_the_criterion(tmp_path: Path) -> None:
    with pytest.raises(RubricError):
        load_rubric(_rubric(tmp_path, "    pass_requires: [numerics]\n"), tools=TOOLS)  # declares numerics only
    with pytest.raises(RubricError):
        load_rubric(_rubric(tmp_path, "    pass_requires: [nosuchtool]\n"), tools=TOOLS)


def test_a_rubric_does_not_list_tools(tmp_path: Path) -> None:
    # Rationale: which tools feed a criterion is declared once, by the tools (Tool.criteria).
    with pytest.raises(RubricError) as err:
        load_rubric(_rubric(tmp_path, "    evidence: [generality, memcheck]\n"))
    assert err.value.status == "bad_rubric"


class _SpeedTool(Tool):
    name = "speed_meter"
    criteria = ("generality", "speed")

    def run(self, ctx: ToolContext) -> None:
        return None


def test_a_tool_naming_an_unknown_criterion_is_refused(tmp_path: Path) -> None:
    path = _rubric(tmp_path)
    with pytest.raises(RubricError) as err:
        load_rubric(path, tools={**TOOLS, **declared_criteria({"speed_meter": _SpeedTool})})
    assert err.value.status == "bad_rubric"
    assert load_rubric(path, tools=TOOLS).spec("generality").tools == ["generality", "memcheck"]


def test_a_smaller_rubric_names_the_criteria_it_does_not_judge(tmp_path: Path) -> None:
    p = tmp_path / "small.yaml"
    p.write_text("name: small\ncriteria:\n  - id: generality\n    title: G\n    question: q\n")
    with pytest.raises(RubricError):
        load_rubric(p, tools=TOOLS)  # numerics is declared but neither judged nor set aside
    p.write_text("name: small\nnot_judged: [numerics]\ncriteria:\n  - id: generality\n    title: G\n    question: q\n")
    r = load_rubric(p, tools=TOOLS)
    got = judge(r, [_ev(1, "generality", "pass"), _ev(1, "numerics", "fail", "numerics")], {})
    assert [(c.id, c.verdict) for c in got] == [("generality", "pass")]


def test_every_registered_tool_declares_only_criteria_of_the_default_rubric() -> None:
    r = load_rubric(tools=declared_criteria())
    assert all(c.tools for c in r.criteria)
    # the NKI tool's performance hints are cited by the performance criterion they bear on
    assert "nki" in r.spec("performance").tools and "benchmark" in r.spec("performance").pass_requires


def test_unverified_blocks_pass_and_overall() -> None:
    r = load_rubric()
    crit = judge(r, [_ev(1, "builds", "pass", "builds")], {})
    assert next(c for c in crit if c.id == "builds").verdict == "pass"
    verdict, reason = overall(crit)
    assert verdict == "needs_human" and "correctness" in reason


def test_not_applicable_only_when_every_tool_does_not_apply(tmp_path: Path) -> None:
    r = load_rubric(_rubric(tmp_path), tools=TOOLS)
    c = judge(r, [], {"generality": "not a Triton kernel", "memcheck": "not a Triton kernel"})[0]
    assert c.verdict == "not_applicable"
    c = judge(r, [], {"memcheck": "not a Triton kernel"})[0]
    assert c.verdict == "unverified"


def test_only_a_criterion_brings_the_tools_its_required_criteria_need() -> None:
    from reviewer.rubric import prerequisite_tools

    tools = declared_criteria()
    rubric = load_rubric(tools=tools)
    assert prerequisite_tools(rubric, ["correctness"], tools) == {"builds": "correctness requires builds"}
    # performance requires correctness, which requires builds: both come along, each with its reason
    added = prerequisite_tools(rubric, ["benchmark"], tools)
    assert added == {"correctness": "performance requires correctness", "builds": "correctness requires builds"}
    assert prerequisite_tools(rubric, ["builds", "correctness"], tools) == {}
