"""What an audit of the task found: whether its check can tell a right kernel from a wrong one.

A task is the reference, its input generator and its check (KernelBench's allclose, a GPU MODE
``check_implementation``, a manifest's tolerance). An audit runs *impostor* outputs through that
check and through kreview's own judgement, and probes the reference itself (sensitivity to every
input and parameter, determinism, finiteness, mutation of its inputs); see docs/task-audit.md.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# the key under which the task audit's evidence item carries the audit (Evidence.result)
RESULT_KEY = "task_audit"


class TaskFinding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str
    """impostor_accepted, constant_output, insensitive_input, insensitive_parameter, zero_parameter,
    nonnegative_input, size1_dim, few_distinct_values, nondeterministic_reference, nonfinite_reference,
    reference_mutates_inputs, reference_failed, reference_hang."""
    impostor: str | None = None
    passes_task_check: bool = False
    passes_own_check: bool | None = None
    """Whether kreview's own correctness judgement accepts the impostor too (None: not an impostor)."""
    degenerate: bool = False
    """Whether this finding alone makes the task degenerate (a wrong kernel can pass it)."""
    detail: str
    covered_by: str = ""
    """Which of kreview's own checks covers what the task misses (or that none does)."""
    numbers: dict[str, Any] = Field(default_factory=dict)


class ImpostorResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    impostor: str
    passes_task_check: bool
    passes_own_check: bool
    task_check: str
    own_check: str
    own_basis: str = ""
    """What decided kreview's judgement (tolerance, error_budget, constant_output, ...)."""


class TaskAudit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str
    degenerate: bool = False
    """Some finding alone lets a wrong kernel pass the task's check (set by ``finished``)."""
    format: str = ""
    task_check: str = ""
    """The check the task itself applies, in words (with its tolerances)."""
    case: dict[str, Any] = Field(default_factory=dict)
    impostors: list[ImpostorResult] = Field(default_factory=list)
    findings: list[TaskFinding] = Field(default_factory=list)

    def finished(self) -> TaskAudit:
        """The audit with ``degenerate`` computed from its findings."""
        return self.model_copy(update={"degenerate": any(f.degenerate for f in self.findings)})

    def own_check_fooled(self, bases: set[str] | None = None) -> list[TaskFinding]:
        """Impostors kreview's own judgement accepts (on one of ``bases``, any if None): a correctness
        pass decided on such a basis cannot rest on that check alone."""
        return [f for f in self.findings if f.kind == "impostor_accepted" and f.passes_own_check
                and (bases is None or f.numbers.get("own_basis") in bases)]

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def task_of(evidence: list[Any]) -> TaskAudit | None:
    """The task audit a review's evidence carries (the first item whose result holds one)."""
    for e in evidence:
        data = (getattr(e, "result", None) or {}).get(RESULT_KEY)
        if data is not None:
            return TaskAudit.model_validate(data)
    return None
