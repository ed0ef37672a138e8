"""The drafter interface. The offline drafter is the default; an LLM drafter plugs in here.

A drafter may also read the source before the tools run (``plan``): the plan node calls it when
the drafter has that method, to propose probes and findings (reviewer/llm does)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from reviewer.core.models import CriterionResult, Draft, Evidence, Finding, RemovedClaim


@dataclass
class DraftOutcome:
    draft: Draft | None
    """None when the drafter could not produce a usable draft (the offline drafter takes over)."""
    usage: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    human_flags: list[str] = field(default_factory=list)
    """Reasons the drafter asks for a human decision (it can raise needs_human, never flip a verdict)."""
    findings: list[Finding] = field(default_factory=list)
    removed: list[RemovedClaim] = field(default_factory=list)
    """Model statements the drafter already dropped as ungrounded (findings, needs_human requests);
    added to ``Draft.removed`` whichever draft is used."""


@dataclass
class PlanOutcome:
    """What a source-reading drafter proposes before the tools run (all JSON-able dicts)."""

    probes: list[dict[str, Any]] = field(default_factory=list)
    """``tools.probes.spec.PlannedProbe`` dumps, already validated against what the harness runs."""
    findings: list[dict[str, Any]] = field(default_factory=list)
    """Source-grounded ``Finding`` dumps (origin llm), confirmed or not after the tools ran."""
    removed: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)


class Drafter(Protocol):
    def draft(self, *, state: dict[str, Any], criteria: list[CriterionResult], evidence: list[Evidence],
              findings: list[Finding]) -> DraftOutcome: ...
