"""The grounding check: every claim must cite evidence that exists or quote the source truthfully.

Claims that do not are removed from the draft and listed in ``Draft.removed`` with the reason.
Section verdicts are reset to the rubric's: no drafter can flip a tool-decided verdict."""

from __future__ import annotations

from pathlib import Path

from reviewer.core.models import Claim, CriterionResult, Draft, RemovedClaim
from reviewer.core.spans import check_span

def check_claim(claim: Claim, evidence_ids: set[str], root: Path) -> str | None:
    if not claim.evidence and not claim.spans:
        return "cites no evidence and no source"
    missing = [i for i in claim.evidence if i not in evidence_ids]
    if missing:
        return f"cites evidence that does not exist: {', '.join(missing)}"
    for span in claim.spans:
        why = check_span(span, root)
        if why:
            return why
    return None


def ground(draft: Draft, criteria: list[CriterionResult], evidence_ids: set[str], root: Path) -> Draft:
    removed = list(draft.removed)
    notes = list(draft.notes)

    def keep(claims: list[Claim], section: str) -> list[Claim]:
        kept = []
        for claim in claims:
            why = check_claim(claim, evidence_ids, root)
            if why:
                removed.append(RemovedClaim(claim=claim, section=section, why=why))
            else:
                kept.append(claim)
        return kept

    verdicts = {c.id: c.verdict for c in criteria}
    sections = []
    for s in draft.sections:
        if s.criterion not in verdicts:
            removed.extend(RemovedClaim(claim=c, section=s.criterion, why="no such criterion") for c in s.claims)
            continue
        if s.verdict != verdicts[s.criterion]:
            notes.append(f"the drafter gave {s.criterion} the verdict {s.verdict!r}; the rubric decided "
                         f"{verdicts[s.criterion]!r}, which stands")
        sections.append(s.model_copy(update={"verdict": verdicts[s.criterion],
                                             "claims": keep(s.claims, s.criterion)}))
    return draft.model_copy(update={"headline": keep(draft.headline, "headline"), "sections": sections,
                                    "removed": removed, "notes": notes})
