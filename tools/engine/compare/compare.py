"""Compare a submission's outputs with the reference's.

Rules (each one a reason a kernel reviewer would reject):
- structure, shape and dtype must match exactly;
- NaN-strict: a NaN or +-inf in the expected output is not a wildcard, its position (and sign for
  inf) must match in the actual output, and the actual output may not add any (``nan_strict=False``
  lets a NaN in the expected output match anything; inf signs and added NaNs still count);
- elsewhere |actual - expected| <= atol + rtol * |expected| (torch.testing.assert_close's form),
  with per-dtype defaults from torch.testing.assert_close and overrides from task/manifest/CLI;
- where every finite reference element is smaller than atol (softmax over very wide rows: outputs
  near 4e-6 against atol 1e-5), atol accepts any answer of the right size, so it is vacuous: it is
  scaled to the output's magnitude (atol * max|expected|, as if the output were of order one) and
  the comparison is relative; the record says so (``atol_vacuous``) and the error budget decides a
  mismatch (judge.py).
Reported per output: max abs error, max rel error, max ULP distance, mismatch count and fraction,
the worst elements and the flat index range of mismatches (a tail or a first block stands out).
Also the spread of both sides (standard deviation, constant, all zeros), so a constant or zero
output that only passes because the tolerance is loose can be told from a real answer.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import torch
from pydantic import BaseModel, ConfigDict, Field

from tools.engine.compare.ulp import ulp_distance
from tools.engine.own_threads import compute_on_one_thread
from tools.engine.harness.tensors import flatten

# torch.testing.assert_close defaults (rtol, atol), documented in torch/testing/_comparison.py.
DEFAULT_TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
}
for _name in ("float8_e4m3fn", "float8_e5m2"):
    if hasattr(torch, _name):
        # Rationale: one step of e4m3 is 12.5% relative; allow one ULP of the coarser format.
        DEFAULT_TOLERANCES[getattr(torch, _name)] = (0.25, 1e-2)


def tolerance_for(dtype: torch.dtype, atol: float | None = None, rtol: float | None = None) -> tuple[float, float]:
    """(atol, rtol) for ``dtype``; integers and bools compare exactly."""
    d_rtol, d_atol = DEFAULT_TOLERANCES.get(dtype, (0.0, 0.0))
    return (d_atol if atol is None else atol), (d_rtol if rtol is None else rtol)


class TensorComparison(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str
    ok: bool
    reason: str = ""
    shape: list[int] = Field(default_factory=list)
    expected_shape: list[int] = Field(default_factory=list)
    dtype: str = ""
    expected_dtype: str = ""
    atol: float = 0.0
    rtol: float = 0.0
    atol_vacuous: bool = False
    """Every finite reference element was below the given atol; ``atol`` is the scaled one used."""
    given_atol: float | None = None
    """The atol in force before scaling (set only when ``atol_vacuous``)."""
    numel: int = 0
    mismatches: int = 0
    mismatch_fraction: float = 0.0
    nonfinite_mismatches: int = 0
    expected_nonfinite: int = 0
    """NaN/inf positions in the expected output (matched unless counted in nonfinite_mismatches)."""
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    max_ulp: float | None = None
    worst: list[dict[str, Any]] = Field(default_factory=list)
    mismatch_flat_range: list[int] | None = None
    expected_abs_max: float | None = None
    actual_abs_max: float | None = None
    actual_std: float | None = None
    expected_std: float | None = None
    spread_ratio: float | None = None
    """actual_std / expected_std over finite elements (None when the expected output is constant)."""
    actual_constant: bool | None = None
    actual_all_zero: bool | None = None
    expected_constant: bool | None = None
    """Constant up to rounding: its range is within a few ULPs of its largest magnitude."""

    @property
    def constant_hides_in_tolerance(self) -> bool:
        """A constant (often all-zero) output accepted only thanks to the tolerance, while the
        reference's output really varies: the answer is not being computed."""
        return bool(self.ok and self.numel >= 2 and self.actual_constant and self.expected_constant is False)


class Comparison(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ok: bool
    reason: str = ""
    outputs: list[TensorComparison] = Field(default_factory=list)

    def headline(self) -> str:
        if self.ok:
            worst = max((o.max_abs_err or 0.0) for o in self.outputs) if self.outputs else 0.0
            ulp = max((o.max_ulp or 0.0) for o in self.outputs) if self.outputs else 0.0
            return f"matches within tolerance (max abs error {worst:.3g}, max {ulp:.0f} ULP){self.vacuous_note()}"
        return self.reason

    def vacuous_note(self) -> str:
        """What the evidence says where the absolute tolerance was vacuous (empty if nowhere)."""
        v = [o for o in self.outputs if o.atol_vacuous]
        if not v:
            return ""
        o = v[0]
        return (f"; every reference element of output {o.path} is below atol={o.given_atol:g} (|max| "
                f"{o.expected_abs_max:.3g}), so that absolute tolerance is vacuous: compared with atol scaled "
                f"to the output's magnitude ({o.atol:.3g}) and rtol={o.rtol:g}")


class _Masks(NamedTuple):
    finite_both: torch.Tensor
    nonfinite_bad: torch.Tensor
    diff: torch.Tensor
    bad: torch.Tensor


def _masks(a: torch.Tensor, e: torch.Tensor, atol: float, rtol: float, nan_strict: bool) -> _Masks:
    a_nan, e_nan = torch.isnan(a), torch.isnan(e)
    a_inf, e_inf = torch.isinf(a), torch.isinf(e)
    finite_both = ~(a_nan | e_nan | a_inf | e_inf)
    nonfinite_ok = (a_nan & e_nan) | (a_inf & e_inf & (torch.sign(a) == torch.sign(e)))
    if not nan_strict:
        nonfinite_ok = nonfinite_ok | e_nan
    nonfinite_bad = ~finite_both & ~nonfinite_ok
    diff = torch.where(finite_both, (a - e).abs(), torch.zeros_like(a))
    bad = nonfinite_bad | (finite_both & ~(diff <= atol + rtol * e.abs()))
    return _Masks(finite_both, nonfinite_bad, diff, bad)


def _vacuous_atol(e: torch.Tensor, atol: float) -> tuple[float, float | None]:
    """(max finite |expected|, the scaled atol where the given one is vacuous, else None)."""
    fin = e[torch.isfinite(e)]
    scale = float(fin.abs().max()) if fin.numel() else 0.0
    return scale, _scaled_atol(scale, atol)


def _scaled_atol(scale: float, atol: float) -> float | None:
    """The atol scaled to the output's magnitude where every finite |expected| (at most ``scale``) is below the
    given one, else None. Rationale: see the module docstring; a whole-tensor-normalised softmax (every output
    1/batch of the right value, all near 4e-6) passed atol 1e-5 on every element."""
    return atol * scale if 0.0 < scale < atol else None


def mismatch_mask(actual: torch.Tensor, expected: torch.Tensor, atol: float | None = None,
                  rtol: float | None = None, nan_strict: bool = True) -> torch.Tensor:
    """Where two same-shaped floating tensors disagree under the comparison's rule (bool tensor)."""
    a_tol, r_tol = tolerance_for(expected.dtype, atol, rtol)
    if not expected.is_floating_point():
        return actual.cpu() != expected.cpu()
    e = expected.detach().double().cpu()
    scaled = _vacuous_atol(e, a_tol)[1]
    return _masks(actual.detach().double().cpu(), e, a_tol if scaled is None else scaled, r_tol, nan_strict).bad


def all_finite(t: torch.Tensor) -> bool:
    """Whether every element of a float64 tensor (the form both sides are compared in) is finite, in one
    reduction: a NaN or inf element makes the sum NaN or inf. A sum that overflows from finite elements
    says False, which only sends the caller to its general rule (the same answer, more passes)."""
    return bool(torch.isfinite(t.sum()))


def flat_index(flat: int, shape: tuple[int, ...]) -> list[int]:
    """The index of element ``flat`` of a C-ordered tensor of ``shape`` (numpy's: torch.unravel_index
    imports torch's symbolic-shape machinery, half a second, on its first call)."""
    return [int(i) for i in np.unravel_index(flat, shape)] if shape else []


# Rationale: a reference output whose range is within this many ULPs of its largest magnitude is
# constant up to rounding (e.g. x - x); a constant submission output is then no evidence of cheating.
_CONSTANT_ULPS = 16


def _spread(base: TensorComparison, a: torch.Tensor, e: torch.Tensor, dtype: torch.dtype, e_abs_max: float, *,
            finite: bool = False) -> None:
    """The spread of both sides over their finite elements (``finite``: every element is finite;
    ``e_abs_max``: max|e| over e's finite elements, which the caller has already computed)."""
    fin_a, fin_e = (a, e) if finite else (a[torch.isfinite(a)], e[torch.isfinite(e)])
    if fin_a.numel():
        base.actual_std = float(fin_a.std(unbiased=False))
        lo, hi = torch.aminmax(fin_a)
        base.actual_constant = bool(hi == lo) and fin_a.numel() == a.numel()
        # every element finite and equal, and that value 0 (or -0): the same as (a == 0).all()
        base.actual_all_zero = base.actual_constant and float(hi) == 0.0
    if fin_e.numel():
        base.expected_std = float(fin_e.std(unbiased=False))
        eps = torch.finfo(dtype).eps if dtype.is_floating_point else 0.0
        lo, hi = torch.aminmax(fin_e)
        base.expected_constant = float(hi - lo) <= _CONSTANT_ULPS * eps * e_abs_max
    if base.actual_std is not None and base.expected_std:
        base.spread_ratio = base.actual_std / base.expected_std


def compare_tensor(path: str, actual: Any, expected: Any, atol: float | None, rtol: float | None,
                   nan_strict: bool = True, *, _finite_path: bool = True) -> TensorComparison:
    """One output against the reference's under the module's rules. (``_finite_path=False`` forces the
    general rule where both sides are finite: for the test that the two paths agree.) On one torch thread,
    so a review, its rerun and an audit sum in the same order on any machine (tools/engine/own_threads.py)."""
    compute_on_one_thread()
    if not isinstance(expected, torch.Tensor):
        expected = torch.as_tensor(expected)
    if not isinstance(actual, torch.Tensor):
        try:
            actual = torch.as_tensor(actual)
        except (TypeError, ValueError, RuntimeError):
            return TensorComparison(path=path, ok=False, reason=f"output {path} is a {type(actual).__name__}, not a tensor")
    a_tol, r_tol = tolerance_for(expected.dtype, atol, rtol)
    base = TensorComparison(path=path, ok=False, shape=list(actual.shape), expected_shape=list(expected.shape),
                            dtype=str(actual.dtype).removeprefix("torch."),
                            expected_dtype=str(expected.dtype).removeprefix("torch."),
                            atol=a_tol, rtol=r_tol, numel=expected.numel())
    if tuple(actual.shape) != tuple(expected.shape):
        base.reason = f"output {path} has shape {tuple(actual.shape)}, the reference {tuple(expected.shape)}"
        return base
    if actual.dtype != expected.dtype:
        base.reason = f"output {path} has dtype {base.dtype}, the reference {base.expected_dtype}"
        return base
    if expected.numel() == 0:
        base.ok = True
        return base
    if not (expected.is_floating_point() or expected.is_complex()):
        bad = actual != expected
        n = int(bad.sum())
        base.mismatches, base.mismatch_fraction = n, n / expected.numel()
        if n:
            idx = bad.flatten().nonzero().flatten()
            base.mismatch_flat_range = [int(idx.min()), int(idx.max())]
            base.reason = f"output {path}: {n} of {expected.numel()} integer elements differ"
        base.ok = n == 0
        return base
    a = actual.detach().double().cpu()
    e = expected.detach().double().cpu()
    # Rationale: almost every comparison has no NaN or inf on either side; there the masks of the
    # general rule are all-true or all-false, and the same figures come from a third of the passes over
    # the tensors (a review compares about a hundred outputs; issue 34). tests/unit/tools/engine/compare
    # checks both paths give the same record, field for field, on finite outputs.
    finite = _finite_path and all_finite(a) and all_finite(e)
    if finite:
        abs_e = e.abs()
        scale = float(abs_e.max())
        scaled = _scaled_atol(scale, a_tol)
    else:
        scale, scaled = _vacuous_atol(e, a_tol)
    if scaled is not None:
        base.atol_vacuous, base.given_atol = True, a_tol
        a_tol = base.atol = scaled
    base.expected_abs_max = scale  # max |expected| over its finite elements (0.0 where there are none)
    if finite:
        diff = (a - e).abs()
        bad = ~(diff <= a_tol + r_tol * abs_e)
        finite_both = None
        rel = torch.where(e != 0, diff / abs_e, torch.zeros_like(a))
        base.nonfinite_mismatches = base.expected_nonfinite = 0
        base.actual_abs_max = float(a.abs().max())
        _spread(base, a.reshape(-1), e.reshape(-1), expected.dtype, scale, finite=True)
    else:
        m = _masks(a, e, a_tol, r_tol, nan_strict)
        finite_both, nonfinite_bad, diff, bad = m.finite_both, m.nonfinite_bad, m.diff, m.bad
        rel = torch.where(finite_both & (e != 0), diff / e.abs(), torch.zeros_like(a))
        base.nonfinite_mismatches = int(nonfinite_bad.sum())
        base.expected_nonfinite = int((~torch.isfinite(e)).sum())
        base.actual_abs_max = float(torch.where(torch.isfinite(a), a.abs(), torch.zeros_like(a)).max())
        _spread(base, a, e, expected.dtype, scale)
    n = int(bad.sum())
    base.mismatches, base.mismatch_fraction = n, n / expected.numel()
    base.max_abs_err = float(diff.max())
    base.max_rel_err = float(rel.max())
    try:
        ulps = ulp_distance(actual, expected)
        if finite_both is None:
            base.max_ulp = float(ulps.max())
        else:
            fin = finite_both.numpy()
            base.max_ulp = float(ulps[fin].max()) if fin.any() else None
    except TypeError:
        base.max_ulp = None
    if n:
        flat_bad = bad.flatten().nonzero().flatten()
        base.mismatch_flat_range = [int(flat_bad.min()), int(flat_bad.max())]
        worst = diff if finite_both is None else torch.where(finite_both, diff, torch.full_like(diff, float("inf")))
        score = torch.where(bad, worst, torch.full_like(diff, -1.0)).flatten()
        top = torch.topk(score, k=min(5, n)).indices.tolist()
        shape = tuple(expected.shape)
        base.worst = [{"index": flat_index(i, shape), "expected": float(e.flatten()[i]),
                       "actual": float(a.flatten()[i])} for i in top]
        first = base.worst[0]
        base.reason = (f"output {path}: {n} of {expected.numel()} elements "
                       f"({100 * base.mismatch_fraction:.3g}%) outside atol={a_tol:g}, rtol={r_tol:g}; "
                       f"max abs error {base.max_abs_err:.3g}; worst at index {first['index']}: "
                       f"expected {first['expected']:.6g}, got {first['actual']:.6g}")
        if base.nonfinite_mismatches:
            base.reason += f"; {base.nonfinite_mismatches} NaN/inf positions differ"
        if base.atol_vacuous:
            base.reason += (f" (every reference element is below the given atol={base.given_atol:g}, |max| "
                            f"{scale:.3g}: that absolute tolerance is vacuous, so atol is scaled to the output's "
                            "magnitude)")
    base.ok = n == 0
    return base


def compare_outputs(actual: Any, expected: Any, atol: float | None = None, rtol: float | None = None,
                    nan_strict: bool = True) -> Comparison:
    """Compare two output lists (as loaded from the children's files)."""
    act = flatten(actual if isinstance(actual, (list, tuple)) else [actual])
    exp = flatten(expected if isinstance(expected, (list, tuple)) else [expected])
    if [p for p, _ in act] != [p for p, _ in exp]:
        return Comparison(ok=False, reason=f"returned outputs {[p for p, _ in act]}, "
                                           f"the reference returns {[p for p, _ in exp]}")
    results = [compare_tensor(p, a, e, atol, rtol, nan_strict) for (p, a), (_, e) in zip(act, exp, strict=True)]
    bad = [r for r in results if not r.ok]
    return Comparison(ok=not bad, reason="; ".join(r.reason for r in bad), outputs=results)
