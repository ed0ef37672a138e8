"""Old version against new version, criterion by criterion, and numbers measured on both."""

from __future__ import annotations

import json
from collections.abc import Sequence

from reviewer.core.models import Evidence, Review
from reviewer.pr.models import CriterionDelta, MetricDelta

# Rationale: fail < unverified < pass; an unverified check is worse than a passed one but not a failure.
_RANK = {"fail": 0, "unverified": 1, "pass": 2}


def compare_criteria(old: Review | None, new: Review | None) -> list[CriterionDelta]:
    order: dict[str, str] = {}
    for r in (new, old):
        for c in (r.criteria if r else []):
            order.setdefault(c.id, c.title)
    out = []
    for cid, title in order.items():
        o = _verdict(old, cid)
        n = _verdict(new, cid)
        out.append(CriterionDelta(id=cid, title=title, old=o, new=n, trend=_trend(o, n)))
    return out


def _verdict(review: Review | None, cid: str):
    if review is None:
        return None
    try:
        return review.criterion(cid).verdict
    except KeyError:
        return None


def _trend(old, new) -> str:
    o = _RANK.get(old) if old else None
    n = _RANK.get(new) if new else None
    if o is None and n is None:
        return "unchanged"
    if o is None:
        return "new"
    if n is None:
        return "removed"
    return "unchanged" if o == n else ("improvement" if n > o else "regression")


def _key(e: Evidence) -> str:
    return json.dumps([e.tool, e.check, e.inputs], sort_keys=True, default=str)


def _numbers(e: Evidence) -> dict[str, float]:
    return {k: float(v) for k, v in e.result.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def compare_metrics(old: Review | None, new: Review | None, criteria: Sequence[str]) -> list[MetricDelta]:
    """Numbers measured by the same check on the same inputs in both versions (failed checks excluded),
    of the ``criteria`` whose numbers mean something between versions (``Rubric.metric_criteria``)."""
    if old is None or new is None:
        return []

    def usable(r: Review) -> dict[str, Evidence]:
        return {_key(e): e for e in r.evidence
                if e.outcome in ("pass", "info") and set(e.criteria) & set(criteria)}

    before = usable(old)
    out = []
    for key, e in usable(new).items():
        o = before.get(key)
        if o is None:
            continue
        old_n, new_n = _numbers(o), _numbers(e)
        crit = next(c for c in e.criteria if c in criteria)
        for name in sorted(old_n.keys() & new_n.keys()):
            out.append(MetricDelta(criterion=crit, tool=e.tool, check=e.check, key=name,
                                   old=old_n[name], new=new_n[name]))
    return out
