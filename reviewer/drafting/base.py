"""The drafter interface (``Drafter``): what the review graph asks of the agent that reads the source
and writes the assessment. ``OfflineDrafter`` (no model) is the default; the LLM agent
(reviewer/llm/agent.py) is the other implementation.

``plan`` runs before the tools (the plan node), for a drafter that ``reads_source``: it reads the source,
and the diff when the review is of a change, to propose probes and findings. ``draft`` runs after the
judge (the draft node)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from reviewer.core.models import CriterionResult, Draft, Evidence, Finding, LLMUsage, RemovedClaim
from reviewer.drafting.offline import draft_offline
from tools.engine.review_plan import PlannedProbe

if TYPE_CHECKING:  # the tools (and torch) load only where a review runs
    from reviewer.graph.state import ReviewState
    from tools.engine.tool import ToolContext


@dataclass
class DraftOutcome:
    draft: Draft | None
    """None when the drafter could not produce a usable draft (the offline drafter takes over)."""
    usage: LLMUsage | None = None
    """The run's model usage so far (None: the drafter asked no model)."""
    notes: list[str] = field(default_factory=list)
    human_flags: list[str] = field(default_factory=list)
    """Reasons the drafter asks for a human decision (it can raise needs_human, never flip a verdict)."""
    findings: list[Finding] = field(default_factory=list)
    removed: list[RemovedClaim] = field(default_factory=list)
    """Model statements the drafter already dropped as ungrounded (findings, needs_human requests);
    added to ``Draft.removed`` whichever draft is used."""


@dataclass
class PlanOutcome:
    """What a source-reading drafter proposes before the tools run (the plan node puts it in the
    run's ``ReviewPlan``)."""

    probes: list[PlannedProbe] = field(default_factory=list)
    """Probes already validated against what the harness runs (``tools.engine.probe_requests.plan_probes``)."""
    findings: list[Finding] = field(default_factory=list)
    """Source-grounded findings (origin llm), confirmed or not after the tools ran."""
    removed: list[RemovedClaim] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    usage: LLMUsage | None = None


@runtime_checkable
class Drafter(Protocol):
    reads_source: bool
    """Whether ``plan`` reads the source (the plan node calls it only then)."""

    def plan(self, *, state: ReviewState, ctx: ToolContext, tools: list[str], diff: str) -> PlanOutcome:
        """Before the tools run: probes and findings from reading the source (``diff``: the unified
        diff of the change under review, or "")."""
        ...

    def draft(self, *, state: ReviewState, criteria: list[CriterionResult], evidence: list[Evidence],
              findings: list[Finding]) -> DraftOutcome:
        """After the judge: the draft (``DraftOutcome.draft`` None: the offline drafter writes it)."""
        ...


class OfflineDrafter:
    """The deterministic drafter that needs no model: reads nothing before the tools, and restates the
    evidence per criterion (reviewer/drafting/offline.py)."""

    reads_source = False

    def plan(self, *, state: ReviewState, ctx: ToolContext, tools: list[str], diff: str) -> PlanOutcome:
        return PlanOutcome()

    def draft(self, *, state: ReviewState, criteria: list[CriterionResult], evidence: list[Evidence],
              findings: list[Finding]) -> DraftOutcome:
        return DraftOutcome(draft=draft_offline(criteria, evidence, findings, state.overall,
                                                state.overall_reason))
