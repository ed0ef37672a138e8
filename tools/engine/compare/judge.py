"""One verdict from an element-wise comparison and an error budget.

``correctness`` (used by the correctness and generality tools): an output is correct when it
matches within the tolerance, or, when the tolerance is the per-dtype default (no task, manifest
or CLI override), when it is within the error budget: a kernel as accurate as the reference
against float64 is correct even if its summation order puts a few elements outside the fp32
table. A constant output accepted only thanks to the tolerance is not correct.

``accuracy`` (used by the numerics tool): the error budget decides where it is available, whatever
the tolerance (a kernel 1000x less accurate than the operator it replaces fails here even inside a
loose atol); without a float64 reference, the comparison decides and the evidence says so.

Without a float64 run (no budget) under the default tolerance, a mismatch inside the rounding bound
(``RoundingBound``: a multiple of sqrt(reduction length) x the format's epsilon x the output's magnitude) is
not judged: the judgement is unverified with the numbers; only a mismatch beyond it fails. An output
whose atol was vacuous (every reference element below it, compare.py) is judged by the budget even
under a task's own tolerance, since that tolerance said nothing at the output's scale.

In both modes structure, shape, dtype and NaN/inf positions must match.
"""

from __future__ import annotations

from typing import Literal

import torch
from pydantic import BaseModel, ConfigDict

from tools.engine.compare.budget import ErrorBudget
from tools.engine.compare.compare import Comparison

Mode = Literal["correctness", "accuracy"]


class Judgement(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ok: bool
    basis: str
    """What decided: tolerance, error_budget, structure, nonfinite, constant_output."""
    defect: str | None = None
    summary: str
    unverified: str | None = None
    """Set (with ``ok`` False) when nothing decided: a mismatch inside the rounding bound and no float64
    run to tell a correct summation order from a wrong answer. Why, in words."""


# Rationale: the rounding error of a K-term sum in a format with epsilon eps grows like sqrt(K) * eps
# times its partial sums; 8 allows partial sums several times the final values and a reference whose
# own order differs. Measured: blocked vs torch row sums over 65,536 fp32 terms differ by 1.8e-4 (bound
# 0.7); an fp32 PSUM matmul (K=512) by 2.3e-5 (bound ~2e-3); a loop that drops one 1,024-element
# chunk is off by ~30.
_BOUND_FACTOR = 8.0


class RoundingBound(BaseModel):
    """How far a correct result in the output's format can be from the reference without a float64 run:
    ``_BOUND_FACTOR`` x sqrt(``reduction_length``) (the longest sum an output element may be: the largest
    input dimension, or the inputs' elements per output element) x the format's epsilon x the output's
    largest magnitude."""

    model_config = ConfigDict(extra="forbid")

    reduction_length: int
    outputs: dict[str, float] = {}
    """Per mismatching output: its bound."""
    within: bool = False

    @classmethod
    def of(cls, cmp: Comparison, reduction_length: int) -> RoundingBound:
        k = max(int(reduction_length), 1)
        out: dict[str, float] = {}
        within = True
        for o in cmp.outputs:
            if o.ok:
                continue
            dtype = getattr(torch, o.expected_dtype, None)
            if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point or o.max_abs_err is None:
                within = False
                continue
            bound = _BOUND_FACTOR * k ** 0.5 * torch.finfo(dtype).eps * (o.expected_abs_max or 0.0)
            out[o.path] = bound
            within = within and o.max_abs_err <= bound
        return cls(reduction_length=k, outputs=out, within=within and bool(out))

    def describe(self) -> str:
        worst = ", ".join(f"{p}: {b:.3g}" for p, b in list(self.outputs.items())[:3])
        return (f"rounding bound {_BOUND_FACTOR:g} x sqrt({self.reduction_length}) (reduction length) x eps x "
                f"max|expected| = {worst}")


def needs_budget(cmp: Comparison, mode: Mode, default_tolerance: bool) -> bool:
    """Whether the verdict depends on the error budget (so the float64 reference must run)."""
    if mode == "accuracy":
        return True
    return (not cmp.ok and (default_tolerance or vacuous_only(cmp)) and _structurally_ok(cmp)
            and not _nonfinite(cmp))


def vacuous_only(cmp: Comparison) -> bool:
    """Every mismatching output had a vacuous atol (compare.py), scaled to its magnitude."""
    bad = [o for o in cmp.outputs if not o.ok]
    return bool(bad) and all(o.atol_vacuous for o in bad)


def _structurally_ok(cmp: Comparison) -> bool:
    """Same outputs, shapes and dtypes, every output compared element by element (an output that
    is not a tensor fails without a single element compared)."""
    return bool(cmp.outputs) and all(o.shape == o.expected_shape and o.dtype == o.expected_dtype
                                     and (o.ok or o.mismatches > 0) for o in cmp.outputs)


def _nonfinite(cmp: Comparison) -> int:
    return sum(o.nonfinite_mismatches for o in cmp.outputs)


def judge(cmp: Comparison, budget: ErrorBudget | None, *, mode: Mode, default_tolerance: bool,
          bound: RoundingBound | None = None) -> Judgement:
    """``bound``: the rounding bound of the mismatch, consulted only without a usable budget under the
    default tolerance (see the module docstring)."""
    j = _judge(cmp, budget, mode=mode, default_tolerance=default_tolerance)
    usable = budget is not None and budget.available
    if (j.ok or j.basis not in ("tolerance",) or usable or not default_tolerance or bound is None
            or not bound.within or cmp.ok):
        return j
    why = (budget.reason if budget is not None else "the verdict did not run one") or "no float64 run"
    return Judgement(ok=False, basis="rounding_bound", defect="float64_unavailable",
                     unverified="a mismatch within the rounding bound and no float64 reference to judge it",
                     summary=(f"{cmp.reason}; within the {bound.describe()}, and no float64 reference ({why}): "
                              "whether this is a correct summation order or a wrong answer is not known"))


def _judge(cmp: Comparison, budget: ErrorBudget | None, *, mode: Mode, default_tolerance: bool) -> Judgement:
    if not cmp.ok and not _structurally_ok(cmp):
        return Judgement(ok=False, basis="structure", defect="mismatch", summary=cmp.reason)
    bad_nf = _nonfinite(cmp)
    if bad_nf:
        return Judgement(ok=False, basis="nonfinite", defect="nonfinite_mismatch", summary=cmp.reason)
    constant = [o for o in cmp.outputs if o.constant_hides_in_tolerance]
    if constant:
        o = constant[0]
        what = "all zeros" if o.actual_all_zero else "a constant"
        return Judgement(ok=False, basis="constant_output", defect="zero_output" if o.actual_all_zero else
                         "constant_output",
                         summary=(f"output {o.path} is {what} yet passes atol={o.atol:g}, rtol={o.rtol:g}: the "
                                  f"reference's output varies (std {o.expected_std:.3g}, |max| "
                                  f"{o.expected_abs_max:.3g}); the tolerance hides that nothing is computed"))
    usable = budget is not None and budget.available
    if mode == "accuracy":
        if usable:
            assert budget is not None
            ok = bool(budget.ok)
            return Judgement(ok=ok, basis="error_budget", defect=None if ok else "precision_loss",
                             summary=budget.describe())
        note = f" ({budget.reason})" if budget is not None else ""
        return Judgement(ok=cmp.ok, basis="tolerance", defect=None if cmp.ok else "mismatch",
                         summary=(cmp.headline() if cmp.ok else cmp.reason) + f"; no float64 budget{note}")
    if cmp.ok:
        return Judgement(ok=True, basis="tolerance", summary=cmp.headline())
    if (default_tolerance or vacuous_only(cmp)) and usable and budget is not None and budget.ok:
        return Judgement(ok=True, basis="error_budget",
                         summary=(f"outside the default tolerance on {sum(o.mismatches for o in cmp.outputs)} "
                                  f"element(s) but as accurate as the reference: {budget.describe()}"))
    extra = f"; {budget.describe()}" if usable and budget is not None else ""
    return Judgement(ok=False, basis="tolerance", defect="mismatch", summary=cmp.reason + extra)
