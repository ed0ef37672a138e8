"""Rules that turn a criterion's evidence into a verdict. Rubrics refer to them by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from reviewer.core.models import Evidence, Verdict


class RuleSettings(Protocol):
    """What a rule reads of its criterion (reviewer/rubric.py:CriterionSpec has these fields)."""

    allow_unverified: bool
    min_pass: int
    pass_requires: list[str]


Rule = Callable[[RuleSettings, list[Evidence]], tuple[Verdict, str]]
RULES: dict[str, Rule] = {}


def rule(name: str) -> Callable[[Rule], Rule]:
    def deco(fn: Rule) -> Rule:
        RULES[name] = fn
        return fn

    return deco


def _cite(items: list[Evidence], limit: int = 3) -> str:
    shown = "; ".join(f"{e.summary} [{e.id}]" for e in items[:limit])
    more = f" (+{len(items) - limit} more)" if len(items) > limit else ""
    return shown + more


@rule("all_pass")
def all_pass(spec: RuleSettings, evidence: list[Evidence]) -> tuple[Verdict, str]:
    """Rationale: one failing check is a defect however many others pass; a pass needs evidence.
    Counts are of checks that concluded or could not: an ``info`` item (a measurement, a probe
    that did not apply) ran no check and is never counted as one."""
    failed = [e for e in evidence if e.outcome == "fail"]
    passed = [e for e in evidence if e.outcome == "pass"]
    unverified = [e for e in evidence if e.outcome == "unverified"]
    checks = len(failed) + len(passed) + len(unverified)
    if failed:
        return "fail", f"{len(failed)} of {checks} checks failed: {_cite(failed)}"
    if unverified and not spec.allow_unverified:
        return "unverified", f"{len(unverified)} check(s) could not be completed: {_cite(unverified)}"
    if len(passed) < spec.min_pass:
        return "unverified", (f"only {len(passed)} passing check(s), {spec.min_pass} needed"
                              + (f": {_cite(unverified)}" if unverified else ""))
    missing = [t for t in spec.pass_requires if not any(e.tool == t for e in passed)]
    if missing:
        return "unverified", (f"{len(passed)} supporting check(s) passed, but no passing evidence from "
                              f"{', '.join(missing)}, which this criterion needs")
    note = f"; {len(unverified)} unverified" if unverified else ""
    return "pass", f"all {len(passed)} checks passed{note}"
