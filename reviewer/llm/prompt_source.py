"""What the roles show the model, as plain text for the prompt templates.

Source is shown with line numbers (so spans can cite them) and relative file names only (so a
prompt, and with it the cache key, does not depend on where the submission sits on disk).
Submission text is untrusted: the prompts say so, and the grounding check holds whatever comes back.
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewer.core.submission import Submission
from reviewer.core.models import CriterionResult, Evidence, Finding
from tools.engine.formats import format_of
from tools.engine.harness.transforms import TRANSFORMS
from tools.engine.probe_requests import DTYPES, MAX_SIZE_FACTOR, MAX_VALUE_MAGNITUDE, MIN_SIZE_CAP

# Rationale: about 10k tokens per file keeps three prompts within small local models' contexts.
MAX_FILE_CHARS = 40_000
MAX_EVIDENCE = 80


@dataclass(frozen=True)
class ShownFile:
    path: str
    role: str
    numbered: str
    truncated: bool


def numbered(text: str, limit: int = MAX_FILE_CHARS) -> tuple[str, bool]:
    lines = text.splitlines()
    width = len(str(len(lines)))
    out, size = [], 0
    for i, line in enumerate(lines, 1):
        row = f"{i:>{width}} | {line}"
        size += len(row) + 1
        if size > limit:
            return "\n".join(out), True
        out.append(row)
    return "\n".join(out), False


def shown_files(sub: Submission) -> list[ShownFile]:
    """The submission file first, then its other sources, then the reference."""
    order = [sub.submission_file] + [f for f in sub.source_files if f not in (sub.submission_file, sub.reference_file)]
    order.append(sub.reference_file)
    files = []
    for rel in order:
        text = sub.source(rel)
        if not text:
            continue
        body, cut = numbered(text)
        role = "reference (trusted, defines the operator)" if rel == sub.reference_file else "submission (untrusted)"
        files.append(ShownFile(path=rel, role=role, numbered=body, truncated=cut))
    return files


def knobs(sub: Submission) -> str:
    """What a probe may change, in words the planner can follow."""
    fmt = format_of(sub)
    lines = fmt.knobs_text(sub)
    lines.append(f"integer sizes: 1 .. max({MAX_SIZE_FACTOR} x nominal, {MIN_SIZE_CAP})")
    if fmt.casts_dtype:
        lines.append(f"dtype: one of {', '.join(DTYPES)} (casts every floating input; nominal: {sub.dtype or 'as generated'})")
    lines.append("transforms (applied to the generated inputs of both the reference and the submission):")
    helps = {"transpose_layout": "same values, column-major strides in the last two dims",
             "strided_slice": "same values as a strided view; args step (2..8), dim",
             "storage_offset": "same values starting offset (1..64) elements into the storage",
             "scale": f"multiply values by factor (|factor| <= {MAX_VALUE_MAGNITUDE:g})",
             "shift": f"add offset to values (|offset| <= {MAX_VALUE_MAGNITUDE:g})"}
    for kind in sorted(TRANSFORMS):
        lines.append(f"  - {kind}: {helps.get(kind, 'see tools/engine/harness/transforms.py')}; optional inputs: [indices]")
    return "\n".join(lines)


def evidence_digest(evidence: list[Evidence]) -> str:
    rows = []
    for e in evidence[:MAX_EVIDENCE]:
        extra = "; ".join(x for x in (f"defect {e.defect}" if e.defect else "", f"why: {e.reason}" if e.reason else "") if x)
        spans = ", ".join(f"{s.file}:{s.start_line}-{s.end_line}" for s in e.spans)
        rows.append(f"- {e.id} [{e.outcome}] ({', '.join(e.criteria)}) {' '.join(e.summary.split())}"
                    + (f" ({extra})" if extra else "") + (f" at {spans}" if spans else ""))
    if len(evidence) > MAX_EVIDENCE:
        rows.append(f"- ... {len(evidence) - MAX_EVIDENCE} more items not shown")
    return "\n".join(rows) or "(no evidence was gathered)"


def criteria_digest(criteria: list[CriterionResult]) -> str:
    return "\n".join(f"- {c.id} ({c.title}): {c.verdict}{'' if c.required else ', optional'}; "
                     f"{' '.join(c.summary.split())}; evidence: {', '.join(c.evidence) or 'none'}" for c in criteria)


def findings_digest(findings: list[Finding]) -> str:
    rows = []
    for f in findings:
        where = ", ".join(f"{s.file}:{s.start_line}-{s.end_line}" for s in f.spans)
        conf = f"confirmed by {', '.join(f.confirmed_by)}" if f.confirmed_by else "not confirmed by a tool"
        rows.append(f"- {f.id} [{f.category}, {f.origin}, {conf}] {' '.join(f.message.split())} at {where}")
    return "\n".join(rows) or "(none)"
