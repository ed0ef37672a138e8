"""InputGrowth: a lower bound on a configuration's input elements from the reference's inputs at twice
the nominal size, so sizes the caps refuse are refused without building their inputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from tools.engine.harness.case import Case
from tools.generality.growth import InputGrowth


@dataclass
class Ref:
    meta: dict[str, Any]
    ok: bool = True


@dataclass
class FakeReference:
    """Inputs whose shapes follow ``shapes(params)``; counts the calls (each builds inputs for real)."""

    shapes: Any
    calls: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, case: Case) -> Ref:
        self.calls.append(dict(case.params))
        return Ref({"inputs": [{"shape": s} for s in self.shapes(case.params)]})


def make_case(cfg: dict[str, Any]) -> Case:
    return Case(id="sizes", seed=1, label="x", params=dict(cfg))


def growth_for(shapes: Any, nominal: dict[str, int]) -> tuple[InputGrowth, FakeReference]:
    ref = FakeReference(shapes)
    n = sum(1 if not s else __import__("math").prod(s) for s in shapes(nominal))
    return InputGrowth(nominal, n, make_case, ref), ref


def test_square_inputs_grow_with_the_square_of_the_knob() -> None:
    growth, ref = growth_for(lambda p: [[p["size"], p["size"]]] * 2, {"size": 127})
    assert growth.at({"size": 16384}) == 2 * 16384**2
    assert growth.at({"size": 8192}) == 2 * 8192**2
    assert ref.calls == [{"size": 254}]  # one doubled run per direction, reused


@pytest.mark.parametrize("shapes", [
    lambda p: [[p["n"]], [64]],                      # a fixed part beside the scaled one
    lambda p: [[p["n"], p["n"]], [p["n"]], [3]],      # a square, a vector and a constant
    lambda p: [[p["n"], 16], [16, 16]],
])
def test_the_bound_never_exceeds_the_exact_count(shapes: Any) -> None:
    growth, _ = growth_for(shapes, {"n": 10})
    for v in (20, 21, 33, 100, 1000, 4096):
        exact = sum(__import__("math").prod(s) for s in shapes({"n": v}))
        assert growth.at({"n": v}) <= exact


def test_no_bound_between_one_and_two_for_mixed_ratios_or_a_refused_double() -> None:
    growth, _ = growth_for(lambda p: [[p["m"], p["k"]], [p["k"], p["n"]]], {"m": 8, "n": 8, "k": 8})
    assert growth.at({"m": 12, "n": 8, "k": 8}) is None          # ratio under 2: the run is cheap anyway
    assert growth.at({"m": 64, "n": 32, "k": 8}) is None         # two ratios: no single direction
    assert growth.at({"m": 64, "n": 64, "k": 64}) == 2 * 64**2   # one ratio over three knobs
    refused = InputGrowth({"n": 4}, 4, make_case, lambda case: Ref({}, ok=False))
    assert refused.at({"n": 64}) is None
