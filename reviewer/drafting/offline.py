"""The offline drafter: a deterministic writer that needs no model.

Every sentence it writes is a claim citing the evidence it restates, so the grounding check can
verify it like any model-written claim."""

from __future__ import annotations

from reviewer.core.models import Claim, CriterionResult, Draft, DraftSection, Evidence, Finding

_MAX_CLAIMS = 6

def _claims_for(c: CriterionResult, by_id: dict[str, Evidence]) -> list[Claim]:
    items = [by_id[i] for i in c.evidence if i in by_id]
    # a concern: a check that found something without deciding the verdict (a passing item naming a
    # defect, or a failing one its criterion does not fail on: reviewer/rules.py:concerns)
    concerns = [e for e in items if e.defect and (e.outcome == "pass" or (e.outcome == "fail" and c.verdict != "fail"))]
    failing = [e for e in items if e.outcome == "fail" and e not in concerns]
    unverified = [e for e in items if e.outcome == "unverified"]
    passing = [e for e in items if e.outcome == "pass" and e not in concerns]
    info = [e for e in items if e.outcome == "info"]
    claims: list[Claim] = []
    for e in failing[:_MAX_CLAIMS]:
        claims.append(Claim(text=e.summary, evidence=[e.id], spans=list(e.spans)))
    if len(failing) > _MAX_CLAIMS:
        rest = failing[_MAX_CLAIMS:]
        claims.append(Claim(text=f"{len(rest)} further failing checks of the same criterion.",
                            evidence=[e.id for e in rest]))
    for e in unverified[:_MAX_CLAIMS]:
        claims.append(Claim(text=f"Unverified: {e.summary}", evidence=[e.id]))
    for e in concerns[:_MAX_CLAIMS]:
        claims.append(Claim(text=f"Concern: {e.summary}", evidence=[e.id], spans=list(e.spans)))
    if passing:
        if c.verdict == "pass" and len(passing) > 2:
            claims.append(Claim(text=f"{len(passing)} checks passed, e.g. {passing[0].summary}",
                                evidence=[e.id for e in passing]))
        else:
            for e in passing[:3]:
                claims.append(Claim(text=e.summary, evidence=[e.id]))
    for e in info[:_MAX_CLAIMS]:
        claims.append(Claim(text=e.summary, evidence=[e.id]))
    return claims


def draft_offline(criteria: list[CriterionResult], evidence: list[Evidence], findings: list[Finding],
                  overall: str, overall_reason: str) -> Draft:
    by_id = {e.id: e for e in evidence}
    sections = [DraftSection(criterion=c.id, verdict=c.verdict, claims=_claims_for(c, by_id)) for c in criteria]
    decisive = [c for c in criteria if c.verdict == "fail"] or [c for c in criteria if c.verdict == "unverified"
                                                                  and c.required]
    headline: list[Claim] = []
    # An item that frames the review (a port review's original, Evidence.frames_review) is said first.
    for item in [e for e in evidence if e.frames_review][:1]:
        headline.append(Claim(text=f"{item.summary[0].upper()}{item.summary[1:]}.",
                              evidence=[item.id]))
    for c in decisive:
        ids = [i for i in c.evidence if i in by_id and by_id[i].outcome in ("fail", "unverified")][:3]
        if ids:
            headline.append(Claim(text=f"{c.title}: {c.verdict}. {by_id[ids[0]].summary}", evidence=ids,
                                  spans=list(by_id[ids[0]].spans)))
    if overall == "accept":
        ids = [i for c in criteria if c.verdict == "pass" for i in c.evidence][:12]
        if ids:
            headline.append(Claim(text="Every required criterion passed on the evidence gathered.", evidence=ids))
    notes = [f"{c.title}: {c.verdict} ({c.summary})" for c in criteria if not c.evidence]
    for f in findings:
        if f.confirmed_by:
            headline.append(Claim(text=f"Finding: {f.message}", evidence=list(f.confirmed_by), spans=list(f.spans)))
    return Draft(drafter="offline", headline=headline, sections=sections, notes=notes)
