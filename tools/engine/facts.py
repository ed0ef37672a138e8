"""Typed facts one tool leaves for later ones in the same review.

A fact is a frozen dataclass; ``ctx.facts`` holds at most one per type. A producer puts it
(``ctx.facts.put(PallasCalls(...))``), a consumer asks for the type (``ctx.facts.get(PallasCalls)``,
``None`` if no tool left one). Both import the type from the engine, never each other.

The facts whose fields are plain engine data are declared here; a fact that carries a type of one
engine module is declared next to that type (``tools/engine/speed_of_light.py``: ``RooflineFact``;
``tools/engine/nominal_run.py``: ``NominalRuns``), and a fact private to one plugin in that plugin.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from reviewer.core.models import Evidence
from tools.engine.harness.case import Case

F = TypeVar("F")


class Facts:
    """At most one fact per type, for the length of one review."""

    def __init__(self) -> None:
        self._by_type: dict[type, object] = {}

    def put(self, fact: object) -> None:
        """Record ``fact``, replacing an earlier fact of its type."""
        params = getattr(type(fact), "__dataclass_params__", None)
        if not dataclasses.is_dataclass(fact) or params is None or not params.frozen:
            raise TypeError(f"a fact is a frozen dataclass, not {type(fact).__name__}")
        self._by_type[type(fact)] = fact

    def get(self, kind: type[F]) -> F | None:
        fact = self._by_type.get(kind)
        return fact if isinstance(fact, kind) else None

    def __contains__(self, kind: type) -> bool:
        return kind in self._by_type


@dataclass(frozen=True)
class RunCheckPassed:
    """The run check passed: the submission imports and runs, so later tools may start work ahead
    (``Tool.prepare``, ``Tool.ahead``)."""


@dataclass(frozen=True)
class PallasCalls:
    """The ``pallas_call``s a Pallas submission made on ``case`` (instrument ``pallas_calls``)."""
    case: Case
    calls: tuple[dict[str, Any], ...] | None


@dataclass(frozen=True)
class TritonLaunches:
    """What the ``triton_launches`` instrument reported for one run of the nominal case."""
    report: dict[str, Any]


@dataclass(frozen=True)
class AutotuneLaunches:
    """Triton launches of every ``@triton.autotune`` config the autotune tool forced in turn, each
    with its ``autotune_config`` index: each one is compiled for the targets too."""
    launches: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class BuildOutcome:
    """What the build check found: its items (import, first call on nominal inputs, the virtual
    device's answers). A check that itself broke off (``finished`` False) reads as failed, as its
    ``tool_error`` item would."""
    items: tuple[Evidence, ...] = ()
    finished: bool = False

    @property
    def failed(self) -> bool:
        """Anything but a pass: tools that run the submission then record nothing."""
        return not self.finished or any(e.outcome in ("fail", "unverified") for e in self.items)

    @property
    def why(self) -> str:
        """The first item that did not pass, or that the check broke off."""
        bad = next((e for e in self.items if e.outcome in ("fail", "unverified")), None)
        return bad.summary if bad is not None else "the build check itself broke off"


@dataclass(frozen=True)
class CompiledKernel:
    """One kernel compiled for one target, its code kept under the run directory (paths relative to it)."""
    compiler: Literal["triton", "nvcc"]
    code: str
    """The kept code a reader reads: TTGIR (triton) or the whole source's SASS (nvcc)."""
    ptx: str | None
    item: Evidence
    """The item that measured it (registers, spills, occupancy; its inputs and target), quoted by readers."""


@dataclass(frozen=True)
class CompiledKernels:
    """What the static compile produced (tools/resources): each compiled kernel, in the order its items
    were recorded, and the summaries of every item it recorded (why nothing was compiled, if so)."""
    kernels: tuple[CompiledKernel, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class NominalCheck:
    """One item of the check on the nominal inputs: its outcome, the case it ran (``Case`` in its dumped
    form, None if the item names none), the call's seconds and the float64 error budget it measured
    (``ErrorBudget`` in its dumped form), where it has them."""
    outcome: str
    case: dict[str, Any] | None
    duration_s: float | None
    error_budget: dict[str, Any] | None
    basis: str | None = None
    """What decided a judged item (tolerance, error_budget, ...: tools/engine/compare/judge.py), where recorded."""


@dataclass(frozen=True)
class NominalChecks:
    """What the check of the outputs on the nominal inputs found (tools/correctness), item by item, for
    tools that judge beyond the nominal inputs (off-nominal probes, numerics, the benchmark)."""
    checks: tuple[NominalCheck, ...]

    @classmethod
    def of(cls, items: list[Evidence]) -> NominalChecks:
        return cls(tuple(NominalCheck(outcome=e.outcome, case=(e.inputs or {}).get("case"), duration_s=e.duration_s,
                                      error_budget=(e.result or {}).get("error_budget"),
                                      basis=(e.result or {}).get("basis")) for e in items))

    @property
    def failed(self) -> bool:
        """The submission already fails on its nominal inputs."""
        return any(c.outcome == "fail" for c in self.checks)

    @property
    def passed(self) -> tuple[NominalCheck, ...]:
        return tuple(c for c in self.checks if c.outcome == "pass")
