"""The review plan: what the plan node decided before the tools run, as one typed model.

The graph's state holds it as this model (``ReviewState.plan``, reviewer/graph/state.py), and so does
the run's checkpoint; a run stored when the state kept it as JSON reads back as the same model. Tools
read ``ToolContext.plan``; the drafter reads the same model from the state.

It lives in the engine, not in reviewer/core, because its probes are ``Case``s (the harness's input
model, tools/engine/harness/case.py), which the core cannot import; everything that needs the plan
(the graph, ``ToolContext``, the drafters) may import the engine.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from reviewer.core.models import Evidence, Finding, RemovedClaim, SourceSpan
from tools.engine.harness.case import Case


class PlannedProbe(BaseModel):
    """A validated probe as stored in the run's plan (``ReviewPlan.probes``). Which criterion it bears
    on is the probes tool's to say (from whether the case leaves the nominal inputs)."""

    model_config = ConfigDict(extra="forbid")

    case: Case
    assumption: str
    finding: str | None = None
    span: SourceSpan | None = None

    @model_validator(mode="before")
    @classmethod
    def _drop_stored_criterion(cls, data: Any) -> Any:
        # Runs stored before the probes tool chose the criterion kept it here; it is recomputed from
        # the same case and submission, so it is dropped when such a run is read back.
        if isinstance(data, dict) and "criterion" in data:
            return {k: v for k, v in data.items() if k != "criterion"}
        return data


class ProbeOrigin(BaseModel):
    """Where a probes-tool evidence item came from: the planner's words, kept under
    ``Evidence.inputs["probe"]`` (evidence spans are only what a tool measured)."""

    assumption: str
    finding: str | None = None
    """The id of the model's finding the probe was proposed to test, if any."""
    proposed_by: str = "planner"
    span: SourceSpan | None = None

    @classmethod
    def of(cls, evidence: Evidence) -> ProbeOrigin | None:
        """The origin recorded on ``evidence``, or None when it has none (not a planned probe)."""
        raw = evidence.inputs.get("probe")
        return cls.model_validate(raw) if isinstance(raw, dict) else None


class ReviewPlan(BaseModel):
    """The plan node's decisions: the tools to run, those switched off, and what a source-reading
    drafter proposed (probes for the probes tool, findings confirmed after the tools ran)."""

    model_config = ConfigDict(extra="ignore")

    tools: list[str] = Field(default_factory=list)
    """The tools that run, in order."""
    probes: list[PlannedProbe] = Field(default_factory=list)
    skipped: dict[str, str] = Field(default_factory=dict)
    """Tools the user switched off (--only, --skip), with why."""
    llm_findings: list[Finding] = Field(default_factory=list)
    """Source-grounded findings of the model (origin llm), confirmed or not after the tools ran."""
    llm_removed: list[RemovedClaim] = Field(default_factory=list)
    llm_notes: list[str] = Field(default_factory=list)
