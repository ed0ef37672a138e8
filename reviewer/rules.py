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
    fail_on: list[str] | None


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


def deciding_fail(spec: RuleSettings, item: Evidence) -> bool:
    """Whether a failing item fails its criterion: every fail does, unless the criterion lists the
    defects that may fail it (``fail_on``, required of optional criteria)."""
    return item.outcome == "fail" and (spec.fail_on is None or item.defect in spec.fail_on)


def concerns(spec: RuleSettings, evidence: list[Evidence]) -> list[Evidence]:
    """Items that found something without it deciding the verdict: a passing check that names a
    defect (a register spill: the kernel launches) and a failing one whose defect the criterion does
    not fail on (slower than the reference, for the optional performance criterion)."""
    return [e for e in evidence if (e.outcome == "pass" and e.defect)
            or (e.outcome == "fail" and not deciding_fail(spec, e))]


@rule("all_pass")
def all_pass(spec: RuleSettings, evidence: list[Evidence]) -> tuple[Verdict, str]:
    """Rationale: one failing check is a defect however many others pass; a pass needs evidence.
    A concern (see ``concerns``) is a check that ran: it counts as passed and is named in the summary.
    Counts are of checks that concluded or could not: an ``info`` item (a measurement, a probe
    that did not apply) ran no check and is never counted as one."""
    failed = [e for e in evidence if deciding_fail(spec, e)]
    concerned = concerns(spec, evidence)
    # a check that ran and found only a concern counts as a passing check
    passed = [e for e in evidence if e.outcome == "pass" or (e.outcome == "fail" and not deciding_fail(spec, e))]
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
    worry = f"; {len(concerned)} concern(s): {_cite(concerned)}" if concerned else ""
    return "pass", f"all {len(passed)} checks passed{note}{worry}"
