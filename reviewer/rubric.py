"""Rubrics as data: load, validate, and judge evidence against them."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from reviewer.core.errors import RubricError
from reviewer.core.models import CriterionResult, Evidence, Overall
from reviewer.datafiles import rubric_path
from reviewer.rules import RULES


class CriterionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    title: str
    question: str
    evidence: list[str] = Field(default_factory=list)
    rule: str = "all_pass"
    min_pass: int = Field(1, ge=0)
    allow_unverified: bool = False
    requires: list[str] = Field(default_factory=list)
    required: bool = True
    pass_requires: list[str] = Field(default_factory=list)
    """Tools that must each contribute a passing item before the criterion can pass: supporting
    tools (a memory checker under generality) cannot make it pass on their own."""


class Rubric(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    version: int = 1
    description: str = ""
    criteria: list[CriterionSpec]
    source: str = ""

    @model_validator(mode="after")
    def _check(self) -> Rubric:
        seen: set[str] = set()
        for c in self.criteria:
            if c.id in seen:
                raise ValueError(f"criterion {c.id!r} is defined twice")
            if c.rule not in RULES:
                raise ValueError(f"criterion {c.id!r}: unknown rule {c.rule!r} (known: {sorted(RULES)})")
            stray = [t for t in c.pass_requires if t not in c.evidence]
            if stray:
                raise ValueError(f"criterion {c.id!r}: pass_requires {stray} are not in its evidence list")
            for r in c.requires:
                if r not in seen:
                    raise ValueError(f"criterion {c.id!r} requires {r!r}, which is not defined before it")
            seen.add(c.id)
        return self

    def spec(self, cid: str) -> CriterionSpec:
        for c in self.criteria:
            if c.id == cid:
                return c
        raise KeyError(cid)


def load_rubric(path: Path | None = None, known_tools: set[str] | None = None) -> Rubric:
    """Load and validate a rubric; with ``known_tools``, every named tool must exist."""
    path = Path(path) if path else rubric_path()
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise RubricError(f"cannot read rubric {path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise RubricError(f"rubric {path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise RubricError(f"rubric {path} must be a mapping with 'name' and 'criteria'")
    try:
        rubric = Rubric.model_validate({**data, "source": str(path)})
    except ValidationError as exc:
        raise RubricError(f"rubric {path} does not validate:\n{exc}") from exc
    if known_tools is not None:
        for c in rubric.criteria:
            unknown = [t for t in c.evidence if t not in known_tools]
            if unknown:
                raise RubricError(f"rubric {path}: criterion {c.id!r} names unknown tool(s) {unknown}; "
                                  f"registered: {sorted(known_tools)}")
    return rubric


def judge(rubric: Rubric, evidence: list[Evidence], not_applicable: dict[str, str]) -> list[CriterionResult]:
    """Verdict per criterion. ``not_applicable`` maps tool names to why they did not apply."""
    results: dict[str, CriterionResult] = {}
    for spec in rubric.criteria:
        items = [e for e in evidence if e.tool in spec.evidence and spec.id in e.criteria]
        blocked = [r for r in spec.requires if results[r].verdict != "pass"]
        if blocked and not any(e.outcome == "fail" for e in items):
            why = "; ".join(f"{r} {results[r].verdict}: {results[r].summary[:240]}" for r in blocked)
            verdict, summary = "unverified", f"not assessed: {', '.join(blocked)} did not pass ({why})"
        elif not items:
            na = [f"{t}: {not_applicable[t]}" for t in spec.evidence if t in not_applicable]
            if spec.evidence and len(na) == len(spec.evidence):
                verdict, summary = "not_applicable", "; ".join(na)
            elif not spec.evidence:
                verdict, summary = "unverified", "no tool gathers evidence for this criterion in this installation"
            else:
                verdict, summary = "unverified", f"no evidence was gathered (tools: {', '.join(spec.evidence)})"
        else:
            verdict, summary = RULES[spec.rule](spec, items)
        results[spec.id] = CriterionResult(id=spec.id, title=spec.title, verdict=verdict, summary=summary,
                                           evidence=[e.id for e in items], required=spec.required)
    return list(results.values())


def overall(criteria: list[CriterionResult], *, human_flags: list[str] | None = None) -> tuple[Overall, str]:
    failed = [c.id for c in criteria if c.verdict == "fail"]
    if failed:
        return "reject", f"failed: {', '.join(failed)}"
    open_ = [c.id for c in criteria if c.required and c.verdict == "unverified"]
    if open_:
        return "needs_human", f"could not be verified: {', '.join(open_)}"
    if human_flags:
        return "needs_human", "; ".join(human_flags)
    optional = [c.id for c in criteria if c.verdict == "unverified"]
    return "accept", "all required criteria passed" + (f"; unverified: {', '.join(optional)}" if optional else "")

