"""Verified fixes for rejected kernels (``kreview fix``, ``kreview review --fix``; docs/fixes.md).

``fix_review(review, root, config)``: rule-based candidates from the review's evidence (candidates.py,
rules.py), each applied to a copy and rerun in the sandbox (verify.py); only a candidate that verifies
becomes a ``Fix``. The first verified candidate per failed criterion is offered; the others tried are
listed as dropped with the reason. With a ``model``, each failed criterion no rule fixed is put to it once
(llm.py); its patch, past the guards of guard.py, is verified by the same rerun (origin ``llm:<model>``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from reviewer.core.config import ReviewConfig, Structured
from reviewer.core.fixes import DroppedFix, Fix, FixReport
from reviewer.core.models import Review
from reviewer.fix.candidates import Candidate, candidates
from reviewer.fix.source import line_changes, lines_changed, unified
from reviewer.fix.verify import Verification, Verifier

if TYPE_CHECKING:
    from reviewer.llm.client import ChatModel

MAX_TRIES = 4
"""Candidates verified per review at most (each is a sandbox rerun)."""


def _fix(n: int, cand: Candidate, text: str, v: Verification) -> Fix:
    return Fix(id=f"fix-{n}", kind=cand.kind, criterion=cand.criterion, origin=cand.origin, file=cand.file,
               description=cand.description,
               diff=unified(text, v.patched, cand.file), lines_changed=lines_changed(text, v.patched),
               edits=list(cand.edits), changes=line_changes(text, v.patched), reruns=v.reruns, tools=v.tools,
               duration_s=v.duration_s)


def _try(cand: Candidate, text: str, verifier: Callable[[Candidate], Verification], report: FixReport,
         fixed: set[str]) -> None:
    v = verifier(cand)
    if v.ok:
        fixed.add(cand.criterion)
        report.fixes.append(_fix(len(report.fixes) + 1, cand, text, v))
    else:
        report.dropped.append(DroppedFix(kind=cand.kind, criterion=cand.criterion, description=cand.description,
                                         origin=cand.origin, why=v.why or "the rerun did not pass",
                                         duration_s=v.duration_s))


def _ask_model(review: Review, root: Path, text: str, todo: list[str], model: ChatModel, structured: Structured,
               verifier: Callable[[Candidate], Verification], report: FixReport, fixed: set[str]) -> None:
    """The model's patch for each criterion in ``todo`` (one question each), verified like a rule's."""
    from reviewer.fix.llm import propose

    try:
        proposed = propose(review, root, text, todo, model, structured=structured)
    except Exception as exc:  # noqa: BLE001 - the model fixer is an extra: its failure leaves the rule-based report
        report.notes.append(f"the model fixer failed ({type(exc).__name__}: {exc}); no model patch"[:400])
        return
    report.notes += proposed.notes
    report.dropped += proposed.refused
    for cand in proposed.candidates:
        _try(cand, text, verifier, report, fixed)


def fix_review(review: Review, root: Path, config: ReviewConfig, *, max_tries: int = MAX_TRIES,
               verifier: Callable[[Candidate], Verification] | None = None,
               model: ChatModel | None = None) -> FixReport:
    """Verified patches for ``review``'s failed criteria (the submission at ``root`` is never modified).
    ``verifier``: what judges a candidate (default: a sandbox rerun, verify.Verifier). ``model``: asked once
    for a patch per failed criterion no rule-based candidate fixed (None: rules only)."""
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
        _try(cand, text, verifier, report, fixed)
    if todo and not report.fixes:
        report.note = "no candidate verified: every one was dropped (see why)"
    unfixed = [c for c in failed if c not in fixed]
    if model is not None and unfixed:
        _ask_model(review, Path(root), text, unfixed, model, config.llm.structured, verifier, report, fixed)
        if not report.fixes and any(d.origin != "rule" for d in report.dropped):
            report.note = f"{report.note}; the model's patch was dropped too (see why)"
    report.duration_s = round(time.monotonic() - started, 2)
    return report


def with_fixes(review: Review, root: Path, config: ReviewConfig, *, model: ChatModel | None = None) -> Review:
    """``review`` with its verified fixes (``model``: the model fixer's too), written back to its run's
    review.json and draft.md (``kreview show`` and the workbench read them there)."""
    from reviewer.drafting.render import render_markdown
    from reviewer.runs import write_review

    fixed = review.model_copy(update={"fixes": fix_review(review, root, config, model=model)})
    if fixed.run_dir:
        write_review(Path(fixed.run_dir), fixed, render_markdown(fixed))
    return fixed


__all__ = ["fix_review", "with_fixes", "FixReport", "Fix"]
