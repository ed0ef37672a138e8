"""The one gate between a candidate and a user: apply it to a copy of the submission, rerun in the sandbox
(same seed, so the same cases) the tools whose checks failed plus those behind correctness and generality,
and accept only if every targeted failing item now passes and no item that passed fails."""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from reviewer.core.config import ReviewConfig
from reviewer.core.fixes import CaseRerun
from reviewer.core.models import Evidence, Review
from reviewer.fix.candidates import Candidate
from reviewer.fix.source import apply

GUARDED = ("correctness", "generality")
"""Criteria whose passing checks every patch must keep passing."""


@dataclass
class Verification:
    ok: bool
    why: str
    reruns: list[CaseRerun] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    patched: str = ""
    duration_s: float = 0.0


def _key(e: Evidence) -> tuple[str, str, str]:
    case = e.inputs.get("case") if isinstance(e.inputs, dict) else None
    cid = (case.get("id") or case.get("label") or "") if isinstance(case, dict) else ""
    return e.tool, e.check, str(cid)


def _case(e: Evidence) -> str:
    return _key(e)[2] or e.check


def rerun_tools(review: Review) -> list[str]:
    """The tools behind every failed criterion and the guarded ones: one rerun of a patch then judges it for any
    failed criterion. A tool whose check was not assessed (the nominal inputs failed) is rerun too: with the
    failure fixed it decides, and it must not fail."""
    watched = {c.id for c in review.criteria if c.verdict == "fail"} | set(GUARDED)
    return sorted({e.tool for e in review.evidence if e.outcome != "info" and watched & set(e.criteria)})


def _copy(root: Path, dest: Path) -> Path:
    return Path(shutil.copytree(root, dest, ignore=shutil.ignore_patterns(".kreview", "__pycache__"), symlinks=True))


def _check_name(check: str) -> str:
    # Rationale: a search's check names its smallest failing configuration in parentheses when it fails
    return check.split(" (", 1)[0]


def _same_check(new: dict[tuple[str, str, str], list[Evidence]], e: Evidence) -> Evidence | None:
    """The rerun's item of the same tool and check when the case differs: a search reports the smallest failing
    configuration as its case (and in its check's name), and the nominal one when nothing fails."""
    tool, check, _ = _key(e)
    same = [k for k, items in new.items() if items and k[0] == tool and _check_name(k[1]) == _check_name(check)]
    return new[same[0]].pop(0) if len(same) == 1 else None


def _take(new: dict[tuple[str, str, str], list[Evidence]], e: Evidence,
          taken: dict[tuple[str, str, str], Evidence]) -> Evidence | None:
    """The rerun's item for ``e``: same tool, check and case (items sharing all three in review order). When the
    rerun has fewer items for that case (a check that reported two defects of one case reports one pass), the
    extra ones get the case's last item: the check ran on that case and that is what it said."""
    items = new.get(_key(e))
    if items:
        taken[_key(e)] = items.pop(0)
        return taken[_key(e)]
    return taken.get(_key(e)) or _same_check(new, e)


def compare(review: Review, after: Review, candidate: Candidate, tools: list[str]) -> tuple[bool, str, list[CaseRerun]]:
    """Whether the rerun ``after`` fixes ``candidate``'s targets without breaking a check that passed."""
    new: dict[tuple[str, str, str], list[Evidence]] = {}
    for e in after.evidence:
        new.setdefault(_key(e), []).append(e)
    targets, reruns, problems = set(candidate.targets), [], []
    taken: dict[tuple[str, str, str], Evidence] = {}
    for e in review.evidence:
        if e.tool not in tools or e.outcome not in ("pass", "fail"):
            continue
        got = _take(new, e, taken)
        now = got.outcome if got else "missing"
        reruns.append(CaseRerun(tool=e.tool, check=e.check, case=_case(e), before=e.outcome, after=now,
                                evidence=e.id))
        if e.id in targets and now != "pass":
            problems.append(f"{e.id} ({_case(e)}) still {now}")
        elif e.outcome == "pass" and now == "fail":
            problems.append(f"{e.id} ({_case(e)}) passed before and fails now")
    for e in (x for items in new.values() for x in items):
        reruns.append(CaseRerun(tool=e.tool, check=e.check, case=_case(e), before="missing", after=e.outcome))
        if e.outcome == "fail" and (set(e.criteria) & {candidate.criterion, *GUARDED}):
            problems.append(f"a new check fails: {e.summary[:120]}")
    verdict = next((c.verdict for c in after.criteria if c.id == candidate.criterion), "missing")
    if not problems and verdict != "pass":
        problems.append(f"criterion {candidate.criterion} is {verdict} on the rerun")
    return not problems, "; ".join(problems), reruns


def rerun(review: Review, root: Path, config: ReviewConfig, file: str, patched: str,
          tools: list[str]) -> tuple[Review | None, str]:
    """The review of a patched copy of ``root`` (same seed, only ``tools``), or None and why it did not finish."""
    from reviewer.api import start_review

    with tempfile.TemporaryDirectory(prefix="kreview-fix-") as tmp:
        copy = _copy(root, Path(tmp) / "submission")
        (copy / file).write_text(patched)
        cfg = config.model_copy(update={"seed": review.seed, "only": tools, "skip": [], "signoff": False,
                                        "runs_dir": Path(tmp) / "runs"})
        try:
            return start_review(copy, cfg), ""
        except Exception as exc:  # noqa: BLE001 - a rerun that cannot finish verifies nothing: dropped, said why
            return None, f"the rerun did not finish: {type(exc).__name__}: {exc}"[:300]


class Verifier:
    """Verifies candidates of one review; a patch proposed for two criteria is rerun once."""

    def __init__(self, review: Review, root: Path, config: ReviewConfig, text: str) -> None:
        self.review, self.root, self.config, self.text = review, Path(root), config, text
        self.tools = rerun_tools(review)
        self._runs: dict[str, tuple[Review | None, str, float]] = {}

    def __call__(self, candidate: Candidate) -> Verification:
        patched = apply(self.text, list(candidate.edits))
        if patched not in self._runs:
            started = time.monotonic()
            after, why = rerun(self.review, self.root, self.config, candidate.file, patched, self.tools)
            self._runs[patched] = (after, why, round(time.monotonic() - started, 2))
        after, why, took = self._runs[patched]
        if after is None:
            return Verification(False, why, tools=self.tools, duration_s=took)
        ok, why, reruns = compare(self.review, after, candidate, self.tools)
        return Verification(ok, why, reruns, self.tools, patched, took)
