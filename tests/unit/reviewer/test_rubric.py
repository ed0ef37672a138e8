"""Rubric loading and the all_pass rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.core.errors import RubricError
from reviewer.core.models import Evidence
from reviewer.rubric import judge, load_rubric, overall


def _ev(i: int, tool: str, outcome: str, crit: str = "generality") -> Evidence:
    return Evidence(id=f"{tool}-{i}", tool=tool, criteria=[crit], outcome=outcome, summary=f"{tool} {outcome}")


def _rubric(tmp_path: Path, extra: str = "") -> Path:
    p = tmp_path / "r.yaml"
    p.write_text("name: t\ncriteria:\n  - id: generality\n    title: G\n    question: q\n"
                 "    evidence: [generality, memcheck]\n" + extra)
    return p


def test_supporting_tool_alone_cannot_pass(tmp_path: Path) -> None:
    r = load_rubric(_rubric(tmp_path, "    pass_requires: [generality]\n"))
    only_support = judge(r, [_ev(1, "memcheck", "pass")], {})[0]
    assert only_support.verdict == "unverified" and "generality" in only_support.summary
    both = judge(r, [_ev(1, "memcheck", "pass"), _ev(1, "generality", "pass")], {})[0]
    assert both.verdict == "pass"
    support_fails = judge(r, [_ev(1, "memcheck", "fail"), _ev(1, "generality", "pass")], {})[0]
    assert support_fails.verdict == "fail"


def test_pass_requires_must_name_listed_tools(tmp_path: Path) -> None:
    with pytest.raises(RubricError):
        load_rubric(_rubric(tmp_path, "    pass_requires: [numerics]\n"))


def test_unverified_blocks_pass_and_overall() -> None:
    r = load_rubric()
    crit = judge(r, [_ev(1, "builds", "pass", "builds")], {})
    assert next(c for c in crit if c.id == "builds").verdict == "pass"
    verdict, reason = overall(crit)
    assert verdict == "needs_human" and "correctness" in reason


def test_not_applicable_only_when_every_tool_does_not_apply(tmp_path: Path) -> None:
    r = load_rubric(_rubric(tmp_path))
    c = judge(r, [], {"generality": "not a Triton kernel", "memcheck": "not a Triton kernel"})[0]
    assert c.verdict == "not_applicable"
    c = judge(r, [], {"memcheck": "not a Triton kernel"})[0]
    assert c.verdict == "unverified"
