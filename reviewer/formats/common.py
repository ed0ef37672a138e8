"""What the CI formats share: where a criterion points in the source, and how paths are written."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from reviewer.core.models import CriterionResult, Evidence, Review, SourceSpan


@dataclass(frozen=True)
class Place:
    """A file, relative to the current directory when it lies below it (as CI systems expect)."""

    path: str
    relative: bool
    start_line: int | None = None
    end_line: int | None = None


def _place(review: Review, file: str, start: int | None = None, end: int | None = None) -> Place:
    full = Path(file) if os.path.isabs(file) else Path(review.submission.root) / file
    try:
        rel = full.resolve().relative_to(Path.cwd().resolve())
        return Place(rel.as_posix(), True, start, end)
    except ValueError:
        return Place(full.resolve().as_posix(), False, start, end)


def evidence_of(review: Review, criterion: CriterionResult) -> list[Evidence]:
    by_id = {e.id: e for e in review.evidence}
    return [by_id[i] for i in criterion.evidence if i in by_id]


def deciding(review: Review, criterion: CriterionResult) -> list[Evidence]:
    """The evidence behind the verdict: the failing items of a failed criterion, the unverified items of
    an unverified one, every item otherwise."""
    items = evidence_of(review, criterion)
    want = {"fail": "fail", "unverified": "unverified"}.get(criterion.verdict)
    picked = [e for e in items if e.outcome == want] if want else []
    return picked or items


def places(review: Review, criterion: CriterionResult) -> list[Place]:
    """Source lines the deciding evidence points at, else the submission file itself."""
    spans: list[SourceSpan] = [s for e in deciding(review, criterion) for s in e.spans]
    out, seen = [], set()
    for s in spans:
        p = _place(review, s.file, s.start_line, s.end_line)
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out or [_place(review, review.submission.submission_file)]


def finding_places(review: Review, spans: list[SourceSpan]) -> list[Place]:
    return [_place(review, s.file, s.start_line, s.end_line) for s in spans] or [
        _place(review, review.submission.submission_file)]


def reruns(review: Review, criterion: CriterionResult) -> list[str]:
    return [f"{e.id}: {e.rerun}" for e in deciding(review, criterion) if e.rerun]


def criterion_text(criterion: CriterionResult) -> str:
    req = "" if criterion.required else " (optional)"
    return f"{criterion.title}{req}: {criterion.verdict}. {criterion.summary}"
