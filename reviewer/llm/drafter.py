"""Role 3: the drafter. Turns the model's per-criterion claims into a ``Draft``.

Section verdicts are always the rubric's. Criteria the model skipped get the offline drafter's
claims (noted). Requests for a human decision must cite something real, like any claim."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from reviewer.drafting.grounding import check_claim
from reviewer.drafting.offline import draft_offline
from reviewer.core.submission import Submission
from reviewer.llm.prompts import load_prompt
from reviewer.llm.schemas import ClaimOut, DraftOut
from reviewer.llm.prompt_source import criteria_digest, evidence_digest, findings_digest, shown_files
from reviewer.llm.static_review import to_span
from reviewer.llm.structured import StructuredCaller, schema_text
from reviewer.core.models import Claim, CriterionResult, Draft, DraftSection, Evidence, Finding, RemovedClaim


@dataclass
class DraftResult:
    draft: Draft | None = None
    human_flags: list[str] = field(default_factory=list)
    removed: list[RemovedClaim] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def to_claim(c: ClaimOut) -> Claim:
    return Claim(text=" ".join(c.text.split()), evidence=list(dict.fromkeys(c.evidence)),
                 spans=[to_span(s) for s in c.spans])


def write_draft(caller: StructuredCaller, sub: Submission, *, criteria: list[CriterionResult],
                evidence: list[Evidence], findings: list[Finding], overall: str, overall_reason: str) -> DraftResult:
    messages = load_prompt("drafter").render(
        name=sub.name, framework=sub.framework, overall=overall, overall_reason=overall_reason,
        criteria=criteria_digest(criteria), evidence=evidence_digest(evidence), findings=findings_digest(findings),
        files=shown_files(sub), schema=schema_text(DraftOut))
    asked = caller.ask(messages, DraftOut, role="drafter")
    out = DraftResult(notes=list(asked.notes))
    if asked.value is None:
        return out
    answer = asked.value
    written: dict[str, list[Claim]] = {}
    for s in answer.sections:
        written.setdefault(s.criterion, []).extend(to_claim(c) for c in s.claims)
    offline = {s.criterion: s for s in draft_offline(criteria, evidence, findings, overall, overall_reason).sections}
    sections = []
    for c in criteria:
        if written.get(c.id):
            sections.append(DraftSection(criterion=c.id, verdict=c.verdict, claims=written.pop(c.id)))
        else:
            written.pop(c.id, None)
            sections.append(offline[c.id])
            if offline[c.id].claims:
                out.notes.append(f"drafter: the model wrote nothing for {c.id}; the offline drafter's claims stand in")
    # sections for criteria that do not exist go through the grounding check, which removes them
    sections += [DraftSection(criterion=cid, verdict="unverified", claims=claims) for cid, claims in written.items()]
    ids = {e.id for e in evidence}
    for flag in answer.needs_human:
        claim = Claim(text=" ".join(flag.reason.split()), evidence=list(flag.evidence),
                      spans=[to_span(s) for s in flag.spans])
        why = check_claim(claim, ids, Path(sub.root))
        if why:
            out.removed.append(RemovedClaim(claim=claim, section="needs_human", why=why))
        else:
            cites = ", ".join(claim.evidence + [f"{s.file}:{s.start_line}" for s in claim.spans])
            out.human_flags.append(f"the drafting model asks for a human decision: {claim.text} ({cites})")
    out.draft = Draft(drafter=f"llm:{caller.model.name}", headline=[to_claim(c) for c in answer.headline],
                      sections=sections)
    return out
