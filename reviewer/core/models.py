"""Typed results shared by every part of the reviewer.

These are the nouns of the JSON contract (``kreview review --format json``): change them only by
adding optional fields. Evidence is what a tool measured; a criterion verdict is what the rubric
concluded from evidence; a claim is a sentence of the draft, which must cite one or the other.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from reviewer.core.fixes import FixReport
from reviewer.core.task import TaskAudit

_R = TypeVar("_R", bound=BaseModel)

SCHEMA_VERSION = 1

Outcome = Literal["pass", "fail", "unverified", "info"]
"""What one evidence item says about the check it ran.

pass/fail: the check ran and the submission passed or failed it. unverified: the check could not be
run or could not conclude (no GPU, tool missing, harness timeout): never read as pass. info: a
measurement without a judgement (register count, duration)."""

Verdict = Literal["pass", "fail", "unverified", "not_applicable"]
Overall = Literal["accept", "reject", "needs_human"]
RunStatus = Literal["awaiting_signoff", "approved", "rejected", "completed", "failed"]
Format = str
"""A registered submission format's name (``kreview.formats`` entry points: kernelbench, gpumode, manifest,
and whatever a plugin adds); ingest refuses a name nobody registered, so adding a format is a format
class and its entry point, with no list to edit here."""
Framework = str
"""A registered backend's name (``kreview.backends`` entry points: triton, pallas, cuda, nki, torch, and
whatever a plugin adds) or ``unknown``; ingest checks a manifest's ``framework`` against the registry, so
adding a framework is a backend class and its entry point, with no list to edit here."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SourceSpan(_Model):
    """A place in the submission, with the text quoted so a reader (and the grounding check) can
    confirm it is really there."""

    file: str
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    quote: str = ""

    @property
    def place(self) -> str:
        """``file:line``, or ``file:first-last`` for several lines."""
        return f"{self.file}:{self.start_line}" + (f"-{self.end_line}" if self.end_line > self.start_line else "")


class Evidence(_Model):
    """One concrete, rerunnable observation made by a tool."""

    id: str
    tool: str
    criteria: list[str]
    outcome: Outcome
    summary: str
    check: str = ""
    defect: str | None = None
    reason: str | None = None
    inputs: dict[str, Any] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)
    result: dict[str, Any] = Field(default_factory=dict)
    spans: list[SourceSpan] = Field(default_factory=list)
    rerun: str = ""
    duration_s: float = 0.0
    artifacts: list[str] = Field(default_factory=list)
    frames_review: bool = False
    """The item frames the whole review (a port review naming its original): drafts state it first."""

    def result_as(self, model: type[_R]) -> _R:
        """``result`` read as ``model`` (a typed result, tools/engine/results.py); the mapping itself is kept."""
        return model.model_validate(self.result)


class Finding(_Model):
    """A statement about the code that is not itself a verdict (static checks, the model's reading).

    ``confirmed_by`` lists evidence that backs it; a finding with none is reported as a finding only."""

    id: str
    origin: Literal["tool", "llm"] = "tool"
    category: str
    severity: Literal["info", "warning", "error"] = "warning"
    message: str
    spans: list[SourceSpan] = Field(default_factory=list)
    confirmed_by: list[str] = Field(default_factory=list)


class CriterionResult(_Model):
    id: str
    title: str
    verdict: Verdict
    summary: str
    evidence: list[str] = Field(default_factory=list)
    required: bool = True
    blocked_by: list[str] = Field(default_factory=list)
    """The required criteria that did not pass, so this one was not assessed (its verdict is then unverified)."""


class Claim(_Model):
    text: str
    evidence: list[str] = Field(default_factory=list)
    spans: list[SourceSpan] = Field(default_factory=list)


class DraftSection(_Model):
    criterion: str
    verdict: Verdict
    claims: list[Claim] = Field(default_factory=list)


class RemovedClaim(_Model):
    claim: Claim
    section: str
    why: str


class Draft(_Model):
    drafter: str
    headline: list[Claim] = Field(default_factory=list)
    sections: list[DraftSection] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    removed: list[RemovedClaim] = Field(default_factory=list)
    markdown: str = ""


class SignoffRecord(_Model):
    decision: Literal["approved", "rejected"]
    by: str
    note: str = ""
    at: str
    edited: bool = False


class SubmissionInfo(_Model):
    root: str
    format: Format
    framework: Framework
    reference_file: str
    submission_file: str
    name: str


class LLMUsage(_Model):
    model: str | None = None
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_calls: int = 0
    cost_usd: float | None = None


class Review(_Model):
    """The whole result of one review run; ``review.json`` in the run directory."""

    schema_version: int = SCHEMA_VERSION
    run_id: str
    status: RunStatus
    overall: Overall
    overall_reason: str = ""
    criteria: list[CriterionResult]
    evidence: list[Evidence]
    findings: list[Finding] = Field(default_factory=list)
    draft: Draft | None = None
    submission: SubmissionInfo
    seed: int
    environment: dict[str, Any] = Field(default_factory=dict)
    signoff: SignoffRecord | None = None
    llm: LLMUsage = Field(default_factory=LLMUsage)
    created_at: str
    duration_s: float = 0.0
    timings: dict[str, float] = Field(default_factory=dict)
    """wall seconds per tool"""
    run_dir: str = ""
    task: TaskAudit | None = None
    """What the audit of the task found (tools/task_audit; docs/task-audit.md), about the task, not the kernel."""
    fixes: FixReport | None = None
    """Verified patches for failed criteria (``kreview review --fix``; docs/fixes.md); None: not computed."""

    def criterion(self, cid: str) -> CriterionResult:
        for c in self.criteria:
            if c.id == cid:
                return c
        raise KeyError(cid)

    def evidence_by_id(self) -> dict[str, Evidence]:
        return {e.id: e for e in self.evidence}
