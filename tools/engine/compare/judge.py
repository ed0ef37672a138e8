"""One verdict from an element-wise comparison and an error budget.

``correctness`` (used by the correctness and generality tools): an output is correct when it
matches within the tolerance, or, when the tolerance is the per-dtype default (no task, manifest
or CLI override), when it is within the error budget: a kernel as accurate as the reference
against float64 is correct even if its summation order puts a few elements outside the fp32
table. A constant output accepted only thanks to the tolerance is not correct.

``accuracy`` (used by the numerics tool): the error budget decides where it is available, whatever
the tolerance (a kernel 1000x less accurate than the operator it replaces fails here even inside a
loose atol); without a float64 reference, the comparison decides and the evidence says so.

In both modes structure, shape, dtype and NaN/inf positions must match.
"""

from __future__ import annotations

from typing import Literal

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


def needs_budget(cmp: Comparison, mode: Mode, default_tolerance: bool) -> bool:
    """Whether the verdict depends on the error budget (so the float64 reference must run)."""
    if mode == "accuracy":
        return True
    return not cmp.ok and default_tolerance and _structurally_ok(cmp) and not _nonfinite(cmp)


def _structurally_ok(cmp: Comparison) -> bool:
    """Same outputs, shapes and dtypes, every output compared element by element (an output that
    is not a tensor fails without a single element compared)."""
    return bool(cmp.outputs) and all(o.shape == o.expected_shape and o.dtype == o.expected_dtype
                                     and (o.ok or o.mismatches > 0) for o in cmp.outputs)


def _nonfinite(cmp: Comparison) -> int:
    return sum(o.nonfinite_mismatches for o in cmp.outputs)


def judge(cmp: Comparison, budget: ErrorBudget | None, *, mode: Mode, default_tolerance: bool) -> Judgement:
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
    if default_tolerance and usable and budget is not None and budget.ok:
        return Judgement(ok=True, basis="error_budget",
                         summary=(f"outside the default tolerance on {sum(o.mismatches for o in cmp.outputs)} "
                                  f"element(s) but as accurate as the reference: {budget.describe()}"))
    extra = f"; {budget.describe()}" if usable and budget is not None else ""
    return Judgement(ok=False, basis="tolerance", defect="mismatch", summary=cmp.reason + extra)
