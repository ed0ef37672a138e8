"""Rubrics as data: load, validate, and judge evidence against them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from reviewer.core.errors import RubricError
from reviewer.core.models import CriterionResult, Evidence, Overall
from reviewer.datafiles import rubric_path
from reviewer.rules import RULES, deciding_fail


class CriterionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    title: str
    question: str
    rule: str = "all_pass"
    min_pass: int = Field(1, ge=0)
    allow_unverified: bool = False
    requires: list[str] = Field(default_factory=list)
    required: bool = True
    pass_requires: list[str] = Field(default_factory=list)
    """Tools that must each contribute a passing item before the criterion can pass: supporting
    tools (a memory checker under generality) cannot make it pass on their own."""
    fail_on: list[str] | None = None
    """The defects that may fail this criterion; any other failing item is a *concern*: shown in the
    summary and the draft, never a fail. ``None`` (every fail decides) is for required criteria; an
    optional criterion must list them (``[]``: it never fails), so it cannot reject a kernel for a
    finding that leaves it right and launchable (reviewer/rules.py:deciding_fail)."""
    metrics: bool = False
    """Its evidence carries numbers whose change between two versions means something (pull-request
    comparisons show them)."""
    tools: list[str] = Field(default_factory=list, exclude=True)
    """The registered tools that declare this criterion (``Tool.criteria``), filled in by
    ``load_rubric``; never written in a rubric file."""


class Rubric(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    version: int = 1
    description: str = ""
    criteria: list[CriterionSpec]
    not_judged: list[str] = Field(default_factory=list)
    """Criteria this rubric knows of but does not judge (a smaller rubric): tools may declare them and
    their items stay in the review, deciding nothing. Any other criterion a tool declares is refused."""
    source: str = ""

    @model_validator(mode="after")
    def _check(self) -> Rubric:
        seen: set[str] = set()
        for c in self.criteria:
            if c.id in seen:
                raise ValueError(f"criterion {c.id!r} is defined twice")
            if c.rule not in RULES:
                raise ValueError(f"criterion {c.id!r}: unknown rule {c.rule!r} (known: {sorted(RULES)})")
            if not c.required and c.fail_on is None:
                raise ValueError(f"criterion {c.id!r} is optional (required: false) and must list the defects that "
                                 "may fail it under fail_on (the kernel is wrong or cannot launch; [] for none): "
                                 "a concern in an optional criterion never rejects a kernel")
            for r in c.requires:
                if r not in seen:
                    raise ValueError(f"criterion {c.id!r} requires {r!r}, which is not defined before it")
            seen.add(c.id)
        both = sorted(seen & set(self.not_judged))
        if both:
            raise ValueError(f"criteria {both} are both defined and listed as not_judged")
        return self

    def metric_criteria(self) -> tuple[str, ...]:
        """The criteria whose numbers a comparison of two versions shows (``metrics: true``)."""
        return tuple(c.id for c in self.criteria if c.metrics)

    def spec(self, cid: str) -> CriterionSpec:
        for c in self.criteria:
            if c.id == cid:
                return c
        raise KeyError(cid)


def load_rubric(path: Path | None = None, tools: Mapping[str, Sequence[str]] | None = None) -> Rubric:
    """Load and validate a rubric. With ``tools`` (tool name -> its ``Tool.criteria``, from
    ``tools.engine.registry.declared_criteria``), bind it: every tool must declare only criteria the
    rubric defines, ``pass_requires`` must name tools that declare the criterion, and each criterion
    learns the tools that feed it."""
    path = Path(path) if path else rubric_path()
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise RubricError(f"cannot read rubric {path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise RubricError(f"rubric {path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise RubricError(f"rubric {path} must be a mapping with 'name' and 'criteria'")
    for c in data.get("criteria") or []:
        if isinstance(c, dict) and ("evidence" in c or "tools" in c):
            raise RubricError(f"rubric {path}: criterion {c.get('id')!r} lists tools; a rubric no longer says which "
                              "tools feed a criterion: each tool declares its criteria (Tool.criteria)")
    try:
        rubric = Rubric.model_validate({**data, "source": str(path)})
    except ValidationError as exc:
        raise RubricError(f"rubric {path} does not validate:\n{exc}") from exc
    return rubric if tools is None else bind(rubric, tools)


def bind(rubric: Rubric, tools: Mapping[str, Sequence[str]]) -> Rubric:
    """``rubric`` with each criterion's feeding tools filled in from the tools' own declarations;
    a tool that declares a criterion the rubric does not define is refused."""
    ids = [c.id for c in rubric.criteria]
    for name, declared in sorted(tools.items()):
        unknown = [c for c in declared if c not in ids and c not in rubric.not_judged]
        if unknown:
            raise RubricError(f"tool {name!r} declares criteria {unknown} that rubric {rubric.name!r} "
                              f"({rubric.source or 'in memory'}) neither defines nor lists as not_judged; "
                              f"its criteria: {ids}")
    specs = []
    for c in rubric.criteria:
        feeding = sorted(name for name, declared in tools.items() if c.id in declared)
        stray = [t for t in c.pass_requires if t not in feeding]
        if stray:
            raise RubricError(f"rubric {rubric.name!r}: criterion {c.id!r} has pass_requires {stray}, but only "
                              f"these tools declare it: {feeding}")
        specs.append(c.model_copy(update={"tools": feeding}))
    return rubric.model_copy(update={"criteria": specs})


def prerequisite_tools(rubric: Rubric, selected: Sequence[str],
                       tools: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Tools an ``--only`` selection needs for its criteria to be judged at all: for each criterion a
    selected tool feeds, the criteria it ``requires`` (transitively), each through the tools its pass needs
    (``pass_requires``, else the tool named after it, else every tool feeding it). Maps each added tool to
    the reason, e.g. ``{"builds": "correctness requires builds"}``."""
    by_id = {c.id: c for c in rubric.criteria}
    added: dict[str, str] = {}
    todo = [(c, None) for t in selected for c in tools.get(t, ()) if c in by_id]
    seen: set[str] = set()
    while todo:
        cid, _ = todo.pop(0)
        if cid in seen:
            continue
        seen.add(cid)
        for req in by_id[cid].requires:
            spec = by_id[req]
            feeding = [t for t, declared in tools.items() if req in declared]
            need = spec.pass_requires or ([req] if req in feeding else feeding)
            for t in need:
                if t not in selected and t not in added:
                    added[t] = f"{cid} requires {req}"
            todo.append((req, None))
    return added


def judge(rubric: Rubric, evidence: list[Evidence], not_applicable: dict[str, str]) -> list[CriterionResult]:
    """Verdict per criterion. ``not_applicable`` maps tool names to why they did not apply."""
    results: dict[str, CriterionResult] = {}
    for spec in rubric.criteria:
        items = [e for e in evidence if spec.id in e.criteria]
        blocked = [r for r in spec.requires if results[r].verdict != "pass"]
        gated = blocked if blocked and not any(deciding_fail(spec, e) for e in items) else []
        if gated:
            why = "; ".join(f"{r} {results[r].verdict}: {results[r].summary[:240]}" for r in gated)
            verdict, summary = "unverified", f"not assessed: {', '.join(gated)} did not pass ({why})"
        elif not items:
            na = [f"{t}: {not_applicable[t]}" for t in spec.tools if t in not_applicable]
            if spec.tools and len(na) == len(spec.tools):
                verdict, summary = "not_applicable", "; ".join(na)
            elif not spec.tools:
                verdict, summary = "unverified", "no tool gathers evidence for this criterion in this installation"
            else:
                verdict, summary = "unverified", f"no evidence was gathered (tools: {', '.join(spec.tools)})"
        else:
            verdict, summary = RULES[spec.rule](spec, items)
        results[spec.id] = CriterionResult(id=spec.id, title=spec.title, verdict=verdict, summary=summary,
                                           evidence=[e.id for e in items], required=spec.required,
                                           blocked_by=gated)
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

