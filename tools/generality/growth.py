"""How a task's inputs grow with its size knobs, measured instead of assumed.

Before the reference builds a configuration's inputs (which is what costs: a 16384 x 16384 pair of
inputs is seconds of ``randn`` and gigabytes), the generality search asks how many input elements it
will have. Assuming every knob scales the inputs linearly (``tools.engine.sizes.scaled_elements``)
underestimates a square input by the knob's ratio, so such sizes were built in full only to be refused
by the element and work caps afterwards.

Here the reference builds the inputs once at twice the nominal value of the knobs a configuration
changes (all by one ratio r), and the growth exponent ``k = log2(n(2) / n(1))`` extrapolates
``n(r) >= n(1) * r**k`` for r >= 2. The bound holds for any input whose element count is a sum of
products of powers of the knobs with non-negative coefficients (shapes built from the knobs, plus
fixed parts): its logarithm is convex in log r, so the secant through r = 1 and r = 2 lies below it
beyond r = 2. A lower bound only ever refuses what the exact count would refuse too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from tools.engine.harness.case import Case
from tools.engine.outcomes import input_elements


class InputGrowth:
    """``at(cfg)``: a lower bound on the input elements of ``cfg`` (None where no bound is derived:
    several ratios, a ratio below 2, or a reference that refuses the doubled size)."""

    def __init__(self, nominal: dict[str, int], nominal_elements: int, make_case: Callable[[dict[str, Any]], Case],
                 reference: Callable[[Case], Any]) -> None:
        self.nominal = nominal
        self.elements = nominal_elements
        self.make_case = make_case
        self.reference = reference
        self.exponents: dict[tuple[str, ...], float | None] = {}

    def at(self, cfg: dict[str, Any]) -> int | None:
        if self.elements <= 0:
            return None
        changed = {k: cfg[k] / v for k, v in self.nominal.items()
                   if v > 0 and isinstance(cfg.get(k), int) and cfg[k] != v}
        if not changed:
            return None
        ratios = set(changed.values())
        if len(ratios) != 1 or (r := ratios.pop()) < 2:
            return None
        ray = tuple(sorted(changed))
        if ray not in self.exponents:
            self.exponents[ray] = self._exponent(ray)
        k = self.exponents[ray]
        return None if k is None else math.floor(self.elements * r ** k * (1 + 1e-12))

    def _exponent(self, ray: tuple[str, ...]) -> float | None:
        doubled = {**self.nominal, **{k: 2 * self.nominal[k] for k in ray}}
        ref = self.reference(self.make_case(doubled))
        n = input_elements(ref.meta) if ref.ok else 0
        return math.log2(n / self.elements) if n >= self.elements else None
