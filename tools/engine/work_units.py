"""The work model that plans off-nominal probes: counts, never seconds.

Which configurations generality and numerics run must be a function of the kernel and the seed,
not of how busy the machine is (a correct kernel was rejected on a loaded machine and accepted on
an idle one when a wall-clock budget decided). So a call's cost is *counted* in work units:

    units = CALL_UNITS + PROGRAM_UNITS * program instances + input elements / ELEMENTS_PER_UNIT

A unit is about a millisecond of a 2-core machine under the Triton interpreter: every call pays a
fixed cost (reference run, input transfer, IPC), every program instance a Python-level overhead,
and every element its share of the numpy work. The nominal run records its program instances (its launches'
grids) once per review; an off-nominal configuration's programs are estimated from it without
running anything (``program_factor``). Each tool plans against a fixed number of units times the
review's ``--budget``; what that plan leaves out is listed. Wall-clock time is only a backstop
(``backstop_s``): a call or a search it cuts is ``unverified`` with what was not run.

The unit's costs depend on where kernels run (``WorkModel``): under the interpreter a program
instance is a Python loop iteration, on a GPU it is free; a review plans with the model of its run
setup, so the same kernel gets the same checks on every machine of that kind.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# Rationale (measured on benchmarks/problems under TRITON_INTERPRET=1, 2 cores): a call with its
# reference and transfers costs ~0.3 s before any work; one-row programs cost ~2 ms each (6,435 of
# them took 16.5 s on a loaded machine); a 16x16384 softmax (16 programs) took 0.84 s in all.
CALL_UNITS = 300.0
PROGRAM_UNITS = 2.0
ELEMENTS_PER_UNIT = 512


def programs_of(launches: Iterable[dict[str, Any]]) -> int:
    """Program instances of recorded Triton launches (0 when no grid is known)."""
    total = 0
    for launch in launches:
        grid = launch.get("grid")
        if isinstance(grid, list) and grid and all(isinstance(g, int) for g in grid):
            n = 1
            for g in grid:
                n *= max(int(g), 0)
            total += n
    return total


def program_factor(elements_ratio: float, knob_ratios: Iterable[float] = ()) -> float:
    """How many times the nominal program instances a configuration may launch.

    Rationale: a grid grows with whichever dimension it is laid over, not with the element count
    (6,435 one-row programs over few elements cost 50 times a nominal 128-row call); without
    knowing which, the largest ratio of any changed size knob, or of the elements, bounds it."""
    return max([elements_ratio, *knob_ratios])


@dataclass(frozen=True)
class WorkModel:
    """What one call costs, in units, where the kernel runs: the same counting rule on every machine
    of a kind, never a timing."""

    name: str
    program_units: float
    elements_per_unit: float
    call_units: float = CALL_UNITS


INTERPRETED = WorkModel("the Triton/Pallas interpreter on the CPU", PROGRAM_UNITS, ELEMENTS_PER_UNIT)
# Rationale: a compiled kernel on a GPU runs its programs in parallel for microseconds: a program
# instance costs nothing countable; what scales with the input is moving it between the reviewer and
# the children (files, host<->device copies, the float64 reference), ~64x cheaper per element than
# the interpreter's numpy work. The fixed cost of a call (IPC, a child's reference run) stays.
COMPILED = WorkModel("compiled kernels on the GPU", 0.0, ELEMENTS_PER_UNIT * 64)


def work_units(programs: float, elements: int, model: WorkModel = INTERPRETED) -> float:
    return model.call_units + model.program_units * float(programs) + elements / model.elements_per_unit


@dataclass
class WorkBudget:
    """A tool's planned work, in units; ``spend`` records what ran, ``cut`` what the plan left out."""

    total: float
    spent: float = 0.0
    cut: list[str] = field(default_factory=list)

    @property
    def left(self) -> float:
        return self.total - self.spent

    def affords(self, units: float) -> bool:
        return units <= self.left

    def spend(self, units: float) -> None:
        self.spent += units

    def record(self) -> dict[str, Any]:
        return {"units": round(self.total, 1), "spent": round(self.spent, 1), "cut": list(self.cut)}
