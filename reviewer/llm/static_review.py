"""Role 2: the static reviewer. Findings about the code, each anchored to a span whose quote must be
in the file; findings with a false quote are removed and listed, never shown."""

from __future__ import annotations

from dataclasses import dataclass, field

from reviewer.core.spans import check_span
from reviewer.core.submission import Submission
from reviewer.llm.prompts import load_prompt
from reviewer.llm.schemas import CATEGORY_HELP, SpanOut, StaticReviewOut
from reviewer.llm.prompt_source import shown_files
from reviewer.llm.structured import StructuredCaller, schema_text
from reviewer.core.models import Claim, Finding, RemovedClaim, SourceSpan

# Rationale: reviewers of LLM bots complain first about noise; a dozen findings is already a lot.
MAX_FINDINGS = 12


@dataclass
class StaticResult:
    findings: list[Finding] = field(default_factory=list)
    removed: list[RemovedClaim] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    answered: bool = False


def to_span(s: SpanOut) -> SourceSpan:
    return SourceSpan(file=s.file, start_line=s.start_line, end_line=s.end_line, quote=s.quote)


def review_source(caller: StructuredCaller, sub: Submission, diff: str = "") -> StaticResult:
    messages = load_prompt("static_review").render(
        framework=sub.framework, format=sub.format, files=shown_files(sub), diff=diff,
        categories=CATEGORY_HELP, max_findings=MAX_FINDINGS, schema=schema_text(StaticReviewOut))
    asked = caller.ask(messages, StaticReviewOut, role="static reviewer")
    out = StaticResult(notes=list(asked.notes), answered=asked.value is not None)
    if asked.value is None:
        return out
    for f in asked.value.findings:
        span = to_span(f.span)
        why = check_span(span, sub.root_path)
        if why:
            out.removed.append(RemovedClaim(claim=Claim(text=f"[{f.category}] {f.message}", spans=[span]),
                                            section="findings", why=why))
            continue
        if len(out.findings) >= MAX_FINDINGS:
            out.notes.append(f"static reviewer: findings beyond {MAX_FINDINGS} were dropped")
            break
        out.findings.append(Finding(id=f"L{len(out.findings) + 1}", origin="llm", category=f.category,
                                    severity=f.severity, message=" ".join(f.message.split()), spans=[span]))
    return out
