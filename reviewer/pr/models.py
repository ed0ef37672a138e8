"""Typed results of a diff review and of the pull-request bot (extra fields forbidden)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from reviewer.core.models import Overall, RunStatus, Verdict

BUNDLE_SCHEMA = 1

ChangeStatus = Literal["added", "modified", "deleted", "renamed", "copied", "type_changed"]
Trend = Literal["regression", "improvement", "unchanged", "new", "removed"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LineRange(_Model):
    """Inclusive line range ``start..end`` (1-based)."""

    start: int = Field(ge=1)
    end: int = Field(ge=1)


class FileChange(_Model):
    """One file changed between two revisions. ``added`` are the new-side lines the change wrote
    (added or modified), ``removed`` the old-side lines it deleted or replaced."""

    path: str
    old_path: str | None = None
    status: ChangeStatus
    added: list[LineRange] = Field(default_factory=list)
    removed: list[LineRange] = Field(default_factory=list)
    binary: bool = False


class ReviewTarget(_Model):
    """A submission directory the change touches, and why."""

    dir: str
    name: str
    reasons: list[str] = Field(default_factory=list)
    in_base: bool = False
    in_head: bool = False


class CriterionDelta(_Model):
    id: str
    title: str
    old: Verdict | None = None
    new: Verdict | None = None
    trend: Trend


class MetricDelta(_Model):
    """A number measured on both versions by the same check (resources, performance)."""

    criterion: str
    tool: str
    check: str
    key: str
    old: float
    new: float

    @property
    def ratio(self) -> float | None:
        return self.new / self.old if self.old else None


class TargetReport(_Model):
    target: ReviewTarget
    new_run: str | None = None
    old_run: str | None = None
    new_status: RunStatus | None = None
    new_overall: Overall | None = None
    old_overall: Overall | None = None
    criteria: list[CriterionDelta] = Field(default_factory=list)
    metrics: list[MetricDelta] = Field(default_factory=list)
    new_error: str | None = None
    old_error: str | None = None


class PlannedComment(_Model):
    """An inline comment candidate on a changed line (new side), ranked (lower rank first)."""

    fingerprint: str
    path: str
    line: int = Field(ge=1)
    start_line: int | None = None
    side: Literal["RIGHT"] = "RIGHT"
    rank: int
    target: str
    sources: list[str] = Field(default_factory=list)
    body: str


class OffDiffNote(_Model):
    """A finding or failed check that points outside the changed lines: reported in the summary only."""

    target: str
    text: str
    where: str = ""
    sources: list[str] = Field(default_factory=list)


class DiffReview(_Model):
    base: str
    head: str
    merge_base: str
    files: list[FileChange] = Field(default_factory=list)
    targets: list[TargetReport] = Field(default_factory=list)
    comments: list[PlannedComment] = Field(default_factory=list)
    off_diff: list[OffDiffNote] = Field(default_factory=list)
    runs_dir: str = ""
    trees: dict[str, str] = Field(default_factory=dict, description="where each revision was written (temporary)")


class PullRef(_Model):
    repo: str
    number: int = Field(ge=1)
    base_sha: str
    head_sha: str


class Bundle(_Model):
    """``bundle.json``: what the unprivileged job hands to the posting job (untrusted input there)."""

    schema_version: int = BUNDLE_SCHEMA
    pull: PullRef
    review: DiffReview
