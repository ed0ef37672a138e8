"""How much an output varies compared with the expected one.

A constant output (all zeros, one repeated value) can sit inside a loose ``atol`` when the expected
values are themselves small: KernelBench has level-1 problems that an all-zero output passes. The
comparison alone cannot tell; these facts can. Shared by the correctness and integrity tools.
"""

from __future__ import annotations

from typing import Any

import torch

from tools.engine.compare.compare import tolerance_for
from tools.engine.harness.tensors import flatten

# Rationale: an output whose spread is under a thousandth of the expected spread carries no
# information about the input; a real kernel's rounding error is far smaller than that ratio.
NEAR_CONSTANT_RATIO = 1e-3


def _stats(t: torch.Tensor) -> dict[str, Any]:
    x = t.detach().cpu()
    if x.is_complex():
        x = torch.view_as_real(x)
    x = x.double().flatten()
    finite = x[torch.isfinite(x)]
    if finite.numel() == 0:
        return {"std": None, "min": None, "max": None, "distinct": 0, "zero_fraction": 0.0}
    distinct = int(torch.unique(finite[:1_000_000]).numel())
    return {"std": float(finite.std(unbiased=False)), "min": float(finite.min()), "max": float(finite.max()),
            "distinct": distinct, "zero_fraction": float((x == 0).sum()) / max(x.numel(), 1)}


def _one(path: str, actual: Any, expected: Any, atol: float | None, rtol: float | None) -> dict[str, Any]:
    out: dict[str, Any] = {"path": path}
    if not (isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor)):
        return out | {"comparable": False}
    if actual.shape != expected.shape or actual.numel() == 0 or not (
            expected.is_floating_point() or expected.is_complex() or expected.dtype == actual.dtype):
        return out | {"comparable": False}
    a, e = _stats(actual), _stats(expected)
    out.update(comparable=True, numel=int(expected.numel()),
               actual=a, expected=e)
    varies = e["distinct"] > 1 and (e["std"] or 0.0) > 0
    out["constant"] = bool(varies and a["distinct"] <= 1)
    out["near_constant"] = bool(varies and a["std"] is not None
                                and a["std"] <= NEAR_CONSTANT_RATIO * float(e["std"]))
    if out["constant"]:
        out["constant_value"] = a["min"]
    if a["std"] and e["std"] and actual.numel() > 1:
        x = actual.detach().cpu().double().flatten()
        y = expected.detach().cpu().double().flatten()
        ok = torch.isfinite(x) & torch.isfinite(y)
        if int(ok.sum()) > 1:
            out["correlation"] = float(torch.corrcoef(torch.stack([x[ok], y[ok]]))[0, 1])
    if expected.is_floating_point():
        a_tol, r_tol = tolerance_for(expected.dtype, atol, rtol)
        ef = expected.detach().cpu().double()
        out["zeros_within_tolerance"] = bool((ef.abs()[torch.isfinite(ef)] <= a_tol + r_tol * ef.abs()[
            torch.isfinite(ef)]).all())
    return out


def output_spread(actual: Any, expected: Any, *, atol: float | None = None, rtol: float | None = None) -> dict:
    """Per output leaf: spread statistics of both sides, ``constant`` (the actual output holds one
    value while the expected varies), ``near_constant`` (its spread is under
    ``NEAR_CONSTANT_RATIO`` of the expected), the correlation with the expected values and whether
    an all-zero output would pass the tolerance. ``constant_outputs`` lists the paths flagged."""
    act = flatten(actual if isinstance(actual, (list, tuple)) else [actual])
    exp = flatten(expected if isinstance(expected, (list, tuple)) else [expected])
    if [p for p, _ in act] != [p for p, _ in exp]:
        return {"outputs": [], "constant_outputs": [], "comparable": False}
    items = [_one(p, a, e, atol, rtol) for (p, a), (_, e) in zip(act, exp, strict=True)]
    flagged = [i["path"] for i in items if i.get("constant") or i.get("near_constant")]
    return {"outputs": items, "constant_outputs": flagged, "comparable": True}
