"""The drafter interface. The offline drafter is the default; an LLM drafter plugs in here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from reviewer.models import CriterionResult, Draft, Evidence, Finding


@dataclass
class DraftOutcome:
    draft: Draft | None
    """None when the drafter could not produce a usable draft (the offline drafter takes over)."""
    usage: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    human_flags: list[str] = field(default_factory=list)
    """Reasons the drafter asks for a human decision (it can raise needs_human, never flip a verdict)."""
    findings: list[Finding] = field(default_factory=list)


class Drafter(Protocol):
    def draft(self, *, state: dict[str, Any], criteria: list[CriterionResult], evidence: list[Evidence],
              findings: list[Finding]) -> DraftOutcome: ...
