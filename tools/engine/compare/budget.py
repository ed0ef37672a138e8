"""The error budget: how accurate the submission is relative to the operator it replaces.

Both the submission (``actual``) and the reference in its native dtype (``expected``) are measured
against the same reference evaluated in float64 on the same inputs (``exact``). Per floating output:

    sub_max = max|actual - exact|          ref_max = max|expected - exact|
    sub_rms = rms(actual - exact)          ref_rms = rms(expected - exact)
    floor   = eps(dtype) * max|exact|      (one ULP at the output's largest magnitude)
    ratio   = max(sub_max / max(ref_max, floor), sub_rms / max(ref_rms, floor))

and the output is *within budget* when ``ratio <= factor`` (default ``BUDGET_FACTOR``). Only
positions finite on all three sides count; NaN/inf positions are the comparison's business.

Rationale for the rule:
- The reference's own error is the yardstick, not a fixed tolerance: an fp32 matmul over K=4096
  has absolute errors near 1e-5 on outputs near zero, outside torch.testing's fp32 table, and a
  correct kernel that sums in another order has errors of the same size (measured: blocked and
  sequential K-loops reach 0.4-7x the reference's error; fp16 inputs 700-900x; fp16 accumulation
  1,400-11,000x; E[x^2]-E[x]^2 layernorm at mean 1000: ~4,800x; tanh-GELU for exact GELU ~560x).
- The floor keeps exactly rounded operators (elementwise maps, where the reference's error is half
  an ULP and a correct kernel's may be one or two) from dividing by almost nothing.
- Max catches a few badly wrong elements, RMS a broad loss of precision; both must be in budget.
- 64 sits an order of magnitude above the worst correct reordering measured and an order below
  the mildest precision downgrade (16-bit mantissas), so neither side is near the line.
Limits: errors are measured on the tensor's scale (max|exact|), so a relative error confined to
elements far smaller than the largest is not seen here (the element-wise comparison sees it).
"""

from __future__ import annotations

from typing import Any

import torch
from pydantic import BaseModel, ConfigDict, Field

from tools.engine.compare.compare import all_finite, flat_index
from tools.engine.harness.tensors import flatten
from tools.engine.own_threads import compute_on_one_thread

# Rationale: see the module docstring (measured gap between correct reorderings and 16-bit precision).
BUDGET_FACTOR = 64.0


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OutputBudget(_M):
    path: str
    dtype: str
    positions: int = 0
    sub_max_err: float = 0.0
    ref_max_err: float = 0.0
    sub_rms_err: float = 0.0
    ref_rms_err: float = 0.0
    floor: float = 0.0
    ratio: float = 0.0
    worst_index: list[int] = Field(default_factory=list)
    ok: bool = True


class ErrorBudget(_M):
    available: bool
    reason: str = ""
    """Why no budget could be computed (``available=False``)."""
    factor: float = BUDGET_FACTOR
    ratio: float | None = None
    """Worst ratio over the outputs: how many times the reference's own error."""
    ok: bool | None = None
    outputs: list[OutputBudget] = Field(default_factory=list)

    def describe(self) -> str:
        if not self.available:
            return f"error budget unavailable: {self.reason}"
        worst = max(self.outputs, key=lambda o: o.ratio) if self.outputs else None
        if worst is None:
            return "error budget: no floating outputs to measure"
        return (f"error vs float64 is {self.ratio:.3g}x the reference's own "
                f"(max {worst.sub_max_err:.3g} vs {max(worst.ref_max_err, worst.floor):.3g}, "
                f"rms {worst.sub_rms_err:.3g} vs {max(worst.ref_rms_err, worst.floor):.3g}; "
                f"budget {self.factor:g}x)")


def unavailable(reason: str) -> ErrorBudget:
    return ErrorBudget(available=False, reason=reason)


def _one(path: str, a: torch.Tensor, e: torch.Tensor, x: torch.Tensor, factor: float, *,
         _finite_path: bool = True) -> OutputBudget | str:
    """One output's budget. (``_finite_path=False`` forces the masked rule where all three sides are
    finite: for the test that the two paths agree.)"""
    if tuple(a.shape) != tuple(e.shape) or tuple(x.shape) != tuple(e.shape):
        return f"output {path}: shapes differ"
    a64, e64, x64 = (t.detach().cpu().double() for t in (a, e, x))
    # Rationale: as in the comparison (compare.py), outputs are nearly always finite on every side; then
    # the masks are all-true, and the same figures come from half the passes (issue 34).
    if _finite_path and all_finite(a64) and all_finite(e64) and all_finite(x64):
        ob = OutputBudget(path=path, dtype=str(e.dtype).removeprefix("torch."), positions=x64.numel())
        if not ob.positions:
            return ob
        d_sub, d_ref = (a64 - x64).abs(), (e64 - x64).abs()
        x_max = float(x64.abs().max())
    else:
        fin = torch.isfinite(a64) & torch.isfinite(e64) & torch.isfinite(x64)
        ob = OutputBudget(path=path, dtype=str(e.dtype).removeprefix("torch."), positions=int(fin.sum()))
        if not ob.positions:
            return ob
        d_sub = torch.where(fin, (a64 - x64).abs(), torch.zeros_like(x64))
        d_ref = torch.where(fin, (e64 - x64).abs(), torch.zeros_like(x64))
        x_max = float(torch.where(fin, x64.abs(), torch.zeros_like(x64)).max())
    fi = torch.finfo(e.dtype)
    ob.floor = max(fi.eps * x_max, fi.tiny)
    ob.sub_max_err, ob.ref_max_err = float(d_sub.max()), float(d_ref.max())
    n = ob.positions
    ob.sub_rms_err = float((d_sub.pow(2).sum() / n).sqrt())
    ob.ref_rms_err = float((d_ref.pow(2).sum() / n).sqrt())
    ob.ratio = max(ob.sub_max_err / max(ob.ref_max_err, ob.floor), ob.sub_rms_err / max(ob.ref_rms_err, ob.floor))
    ob.ok = ob.ratio <= factor
    flat = int(d_sub.flatten().argmax())
    ob.worst_index = flat_index(flat, tuple(e.shape))
    return ob


def error_budget(actual: Any, expected: Any, exact: Any, factor: float = BUDGET_FACTOR) -> ErrorBudget:
    """The budget of every floating, non-float64 output (see the module docstring), on one torch thread
    (as the comparison: the same sums on any machine)."""
    compute_on_one_thread()
    def leaves(v: Any) -> list[tuple[str, Any]]:
        return flatten(v if isinstance(v, (list, tuple)) else [v])

    act, exp, ex = leaves(actual), leaves(expected), leaves(exact)
    if not ([p for p, _ in act] == [p for p, _ in exp] == [p for p, _ in ex]):
        return unavailable("the outputs' structures differ")
    outs: list[OutputBudget] = []
    for (path, a), (_, e), (_, x) in zip(act, exp, ex, strict=True):
        if not (isinstance(e, torch.Tensor) and e.is_floating_point()) or e.dtype == torch.float64:
            continue  # integers compare exactly; a float64 reference is its own exact answer
        if not isinstance(x, torch.Tensor) or x.dtype != torch.float64:
            got = str(getattr(x, "dtype", type(x).__name__)).removeprefix("torch.")
            return unavailable(f"the reference does not compute output {path} in float64 when its inputs are "
                               f"float64 (it returns {got})")
        if not isinstance(a, torch.Tensor) or not a.is_floating_point():
            return unavailable(f"output {path} of the submission is not a floating tensor")
        one = _one(path, a, e, x, factor)
        if isinstance(one, str):
            return unavailable(one)
        outs.append(one)
    if not outs:
        return unavailable("no floating output below float64 to measure")
    ratio = max(o.ratio for o in outs)
    return ErrorBudget(available=True, factor=factor, ratio=ratio, ok=all(o.ok for o in outs), outputs=outs)
