"""Typed results of the fixer (``kreview fix``, ``kreview review --fix``): patches that were checked.

A ``Fix`` is only ever made from a candidate whose rerun in the sandbox passed: the failing cases it
targets now pass and no check that passed before fails. A candidate that did not get there is a
``DroppedFix`` with the reason; it carries no diff, so no unverified patch can be shown. A fix's ``origin``
says who proposed it: ``rule`` (reviewer/fix/rules.py) or ``llm:<model>`` (reviewer/fix/llm.py); both go
through the same rerun.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FixKind = Literal["tail_mask", "contiguous", "fp32_accumulator", "max_subtraction", "int64_offsets",
                  "store_cast", "wrapper_dtype", "llm_patch"]
RerunOutcome = Literal["pass", "fail", "unverified", "info", "missing"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TextEdit(_Model):
    """One replacement in the original file: lines 1-based, columns 0-based (Python's ``ast``), end
    exclusive. An insertion has start == end."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    start_line: int = Field(ge=1)
    start_col: int = Field(ge=0)
    end_line: int = Field(ge=1)
    end_col: int = Field(ge=0)
    text: str


class LineChange(_Model):
    """Whole lines of the original (``start_line``..``end_line``, inclusive) and what replaces them: the
    unit of a GitHub ``suggestion`` block."""

    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    old: list[str]
    new: list[str]


class CaseRerun(_Model):
    """One check of the original review, run again on the patched copy."""

    tool: str
    check: str
    case: str
    before: RerunOutcome
    after: RerunOutcome
    evidence: str = ""
    """The original review's evidence id (empty: a check the rerun made that the review had not)."""


class Fix(_Model):
    """A verified patch: the failing cases it targets pass on the patched copy and nothing that passed fails."""

    id: str
    kind: FixKind
    criterion: str
    """The failed criterion the patch makes pass."""
    origin: str = "rule"
    """Who proposed the patch: ``rule`` or ``llm:<model>`` (the rerun verified it either way)."""
    file: str
    """The patched file, relative to the submission directory."""
    description: str
    diff: str
    """Unified diff (``a/<file>`` -> ``b/<file>``)."""
    lines_changed: int
    edits: list[TextEdit]
    changes: list[LineChange]
    reruns: list[CaseRerun]
    tools: list[str]
    """The tools rerun on the patched copy (same seed as the review)."""
    duration_s: float


class DroppedFix(_Model):
    """A candidate that was tried and not offered, and why."""

    kind: FixKind
    criterion: str
    description: str
    why: str
    duration_s: float = 0.0
    origin: str = "rule"


class FixReport(_Model):
    """What ``--fix`` computed for one review."""

    fixes: list[Fix] = Field(default_factory=list)
    dropped: list[DroppedFix] = Field(default_factory=list)
    note: str = ""
    """Why there is nothing to offer, when there is nothing (no failed criterion, no candidate rule applies)."""
    notes: list[str] = Field(default_factory=list)
    """What the model fixer could not do (no answer, an unusable answer); empty without a model."""
    duration_s: float = 0.0

    def for_criterion(self, cid: str) -> list[Fix]:
        return [f for f in self.fixes if f.criterion == cid]
