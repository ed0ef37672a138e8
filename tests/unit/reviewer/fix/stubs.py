"""Reviews made of evidence stubs, for the fixer's unit tests (no sandbox)."""

from __future__ import annotations

from reviewer.core.models import CriterionResult, Evidence, Review, SubmissionInfo

CRITERIA = ("builds", "correctness", "generality", "numerics")


def ev(i: str, tool: str, crit: str, outcome: str, *, defect: str = "", check: str = "", summary: str = "",
       case: str = "") -> Evidence:
    return Evidence(id=i, tool=tool, criteria=[crit], outcome=outcome, defect=defect or None, check=check or tool,
                    summary=summary or f"{tool} {outcome}", inputs={"case": {"id": case or i}})


def review(evidence: list[Evidence], root: str = "/x") -> Review:
    crits = []
    for c in CRITERIA:
        mine = [e for e in evidence if c in e.criteria]
        verdict = "fail" if any(e.outcome == "fail" for e in mine) else "pass"
        crits.append(CriterionResult(id=c, title=c.title(), verdict=verdict, summary="", evidence=[e.id for e in mine]))
    return Review(run_id="20261204-000000-abcdef", status="completed",
                  overall="reject" if any(c.verdict == "fail" for c in crits) else "accept", criteria=crits,
                  evidence=evidence, seed=7, created_at="2026-12-04T00:00:00+00:00",
                  submission=SubmissionInfo(root=root, format="kernelbench", framework="triton",
                                            reference_file="reference.py", submission_file="submission.py", name="k"))
