"""Verified fixes for rejected kernels (``kreview fix``, ``kreview review --fix``; docs/fixes.md).

``fix_review(review, root, config)``: rule-based candidates from the review's evidence (candidates.py,
rules.py), each applied to a copy and rerun in the sandbox (verify.py); only a candidate that verifies
becomes a ``Fix``. The first verified candidate per failed criterion is offered; the others tried are
listed as dropped with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from reviewer.core.config import ReviewConfig
from reviewer.core.fixes import DroppedFix, Fix, FixReport
from reviewer.core.models import Review
from reviewer.fix.candidates import Candidate, candidates
from reviewer.fix.source import line_changes, lines_changed, unified
from reviewer.fix.verify import Verification, Verifier

MAX_TRIES = 4
"""Candidates verified per review at most (each is a sandbox rerun)."""


def _fix(n: int, cand: Candidate, text: str, v: Verification) -> Fix:
    return Fix(id=f"fix-{n}", kind=cand.kind, criterion=cand.criterion, file=cand.file, description=cand.description,
               diff=unified(text, v.patched, cand.file), lines_changed=lines_changed(text, v.patched),
               edits=list(cand.edits), changes=line_changes(text, v.patched), reruns=v.reruns, tools=v.tools,
               duration_s=v.duration_s)


def fix_review(review: Review, root: Path, config: ReviewConfig, *, max_tries: int = MAX_TRIES,
               verifier: Callable[[Candidate], Verification] | None = None) -> FixReport:
    """Verified patches for ``review``'s failed criteria (the submission at ``root`` is never modified).
    ``verifier``: what judges a candidate (default: a sandbox rerun, verify.Verifier)."""
    started = time.monotonic()
    failed = [c.id for c in review.criteria if c.verdict == "fail"]
    if not failed:
        return FixReport(note="no criterion failed: nothing to fix")
    text = (Path(root) / review.submission.submission_file).read_text()
    todo = candidates(review, text)
    report = FixReport()
    verifier = verifier or Verifier(review, Path(root), config, text)
    if not todo:
        report.note = (f"no rule-based candidate for the failed criteria ({', '.join(failed)}): the evidence names "
                       "no defect class the fixer knows, or its pattern is not in the submission file")
    fixed: set[str] = set()
    tried: set[tuple] = set()
    for cand in todo:
        if cand.criterion in fixed:
            continue
        if len(tried) >= max_tries and cand.edits not in tried:
            report.dropped.append(DroppedFix(kind=cand.kind, criterion=cand.criterion, description=cand.description,
                                             why=f"not tried: at most {max_tries} patches are rerun per review"))
            continue
        tried.add(cand.edits)
        v = verifier(cand)
        if v.ok:
            fixed.add(cand.criterion)
            report.fixes.append(_fix(len(report.fixes) + 1, cand, text, v))
        else:
            report.dropped.append(DroppedFix(kind=cand.kind, criterion=cand.criterion, description=cand.description,
                                             why=v.why or "the rerun did not pass", duration_s=v.duration_s))
    if todo and not report.fixes:
        report.note = "no candidate verified: every one was dropped (see why)"
    report.duration_s = round(time.monotonic() - started, 2)
    return report


def with_fixes(review: Review, root: Path, config: ReviewConfig) -> Review:
    """``review`` with its verified fixes, written back to its run's review.json and draft.md (``kreview show``
    and the workbench read them there)."""
    from reviewer.drafting.render import render_markdown
    from reviewer.runs import write_review

    fixed = review.model_copy(update={"fixes": fix_review(review, root, config)})
    if fixed.run_dir:
        write_review(Path(fixed.run_dir), fixed, render_markdown(fixed))
    return fixed


__all__ = ["fix_review", "with_fixes", "FixReport", "Fix"]
