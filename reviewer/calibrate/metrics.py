"""Agreement between the reviewer and human graders.

``unverified`` and ``not_applicable`` are never counted as agreement: accuracy over all graded
cases treats them as disagreements, and they are reported separately; Cohen's kappa and the
precision/recall of ``fail`` are computed over the cases the reviewer decided (pass/fail)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict

REVIEWER_LABELS = ("pass", "fail", "unverified", "not_applicable")


class CriterionAgreement(BaseModel):
    model_config = ConfigDict(extra="forbid")

    criterion: str
    graded: int
    decided: int
    unverified: int
    not_applicable: int
    agree: int
    accuracy_all: float | None
    accuracy_decided: float | None
    kappa: float | None
    fail_precision: float | None
    fail_recall: float | None
    confusion: dict[str, dict[str, int]]
    """human label -> reviewer label -> count"""


def cohen_kappa(pairs: list[tuple[str, str]]) -> float | None:
    """Cohen's kappa of two raters over the same items; None when undefined: no items, or chance
    agreement of 1 (both raters gave every item the same single label, so kappa is 0/0 even when they
    agree on all of them; reporting 1.0 there would claim agreement beyond chance that nothing measured)."""
    n = len(pairs)
    if n == 0:
        return None
    labels = sorted({a for a, _ in pairs} | {b for _, b in pairs})
    po = sum(a == b for a, b in pairs) / n
    ca, cb = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    pe = sum(ca[label] * cb[label] for label in labels) / (n * n)
    if pe == 1.0:
        return None
    return (po - pe) / (1 - pe)


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def criterion_agreement(criterion: str, rows: list[tuple[str, str]]) -> CriterionAgreement:
    """``rows``: (human pass|fail, reviewer verdict) for one criterion."""
    confusion = {h: {r: 0 for r in REVIEWER_LABELS} for h in ("pass", "fail")}
    for h, r in rows:
        confusion[h][r] += 1
    decided = [(h, r) for h, r in rows if r in ("pass", "fail")]
    agree = sum(h == r for h, r in decided)
    tp = sum(h == "fail" and r == "fail" for h, r in decided)
    fp = sum(h == "pass" and r == "fail" for h, r in decided)
    fn = sum(h == "fail" and r == "pass" for h, r in decided)
    return CriterionAgreement(
        criterion=criterion, graded=len(rows), decided=len(decided),
        unverified=sum(r == "unverified" for _, r in rows), not_applicable=sum(r == "not_applicable" for _, r in rows),
        agree=agree, accuracy_all=_ratio(agree, len(rows)), accuracy_decided=_ratio(agree, len(decided)),
        kappa=cohen_kappa(decided), fail_precision=_ratio(tp, tp + fp), fail_recall=_ratio(tp, tp + fn),
        confusion=confusion)


def overall_agreement(rows: list[tuple[str, str]]) -> dict[str, Any]:
    """(human accept|reject, reviewer accept|reject|needs_human)."""
    confusion = {h: {r: 0 for r in ("accept", "reject", "needs_human")} for h in ("accept", "reject")}
    for h, r in rows:
        confusion[h][r] += 1
    decided = [(h, r) for h, r in rows if r != "needs_human"]
    agree = sum(h == r for h, r in decided)
    return {"cases": len(rows), "decided": len(decided), "needs_human": len(rows) - len(decided),
            "agree": agree, "accuracy_all": _ratio(agree, len(rows)),
            "accuracy_decided": _ratio(agree, len(decided)), "kappa": cohen_kappa(decided), "confusion": confusion}
