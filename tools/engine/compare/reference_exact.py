"""Float64 is the judge where the reference is not exact.

A reference computed in a low-precision dtype can overflow (or produce NaN from inf - inf) on a
probe where the exact result is finite: an fp16 matmul+leaky_relu at x1e3 inputs overflowed to -inf
in the reference's intermediate while a kernel that applies the activation in fp32 matched float64
to four digits. Such a kernel is not wrong. ``patch_inexact`` finds, per floating output, the
positions where the reference is non-finite but its float64 run is finite and representable in the
output's dtype; where the submission is finite there, it substitutes the float64 value (rounded to
the dtype) for the reference's, so the usual comparison and error budget judge those positions
against the exact answer and every other position against the reference as before.
"""

from __future__ import annotations

from typing import Any

import torch
from pydantic import BaseModel, ConfigDict, Field

from tools.engine.harness.tensors import flatten


class InexactOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str
    positions: int
    """reference non-finite, float64 finite and representable, submission finite"""
    max_abs_err_vs_float64: float
    examples: list[dict[str, Any]] = Field(default_factory=list)


def _num(v: torch.Tensor) -> float | str:
    """A JSON-safe value: non-finite ones as text ("inf", "-inf", "nan")."""
    f = float(v)
    return f if torch.isfinite(v) else str(f)


def _leaves(v: Any) -> list[tuple[str, Any]]:
    return flatten(v if isinstance(v, (list, tuple)) else [v])


def patch_inexact(actual: Any, expected: Any, exact: Any) -> tuple[Any, list[InexactOutput]]:
    """``expected`` with the reference's inexact non-finite positions replaced by float64's value
    (where the submission is finite), and what was replaced; ``([], ...)`` when nothing was."""
    act, exp, ex = _leaves(actual), _leaves(expected), _leaves(exact)
    if not ([p for p, _ in act] == [p for p, _ in exp] == [p for p, _ in ex]):
        return expected, []
    patched: list[Any] = []
    found: list[InexactOutput] = []
    for (path, a), (_, e), (_, x) in zip(act, exp, ex, strict=True):
        ok_types = all(isinstance(t, torch.Tensor) and t.is_floating_point() for t in (a, e, x))
        if not ok_types or a.shape != e.shape or x.shape != e.shape or e.dtype == torch.float64:
            patched.append(e)
            continue
        x64 = x.detach().cpu().double()
        # representable: float64's value rounds to a finite value in the output's dtype (65519 rounds to
        # fp16's 65504, as a kernel's fp32 result does when it stores it)
        where = (~torch.isfinite(e.cpu())) & torch.isfinite(x64.to(e.dtype)) & torch.isfinite(a.cpu())
        n = int(where.sum())
        if not n:
            patched.append(e)
            continue
        fixed = torch.where(where, x64.to(e.dtype), e.cpu())
        err = (a.detach().cpu().double() - x64).abs()[where]
        idx = where.flatten().nonzero()[:3].flatten().tolist()
        examples = [{"index": int(i), "reference": _num(e.flatten()[i]), "float64": _num(x64.flatten()[i]),
                     "submission": _num(a.detach().cpu().flatten()[i])} for i in idx]
        found.append(InexactOutput(path=path, positions=n, max_abs_err_vs_float64=float(err.max()),
                                   examples=examples))
        patched.append(fixed)
    if not found:
        return expected, []
    it = iter(patched)
    return _rebuild(expected, it), found


def _rebuild(value: Any, leaves: Any) -> Any:
    """``value`` with its leaves replaced, in ``flatten``'s order."""
    if isinstance(value, (list, tuple)):
        out = [_rebuild(v, leaves) for v in value]
        return out if isinstance(value, list) else tuple(out)
    if isinstance(value, dict):
        return {k: _rebuild(v, leaves) for k, v in value.items()}
    return next(leaves)


def describe(found: list[InexactOutput]) -> str:
    n = sum(f.positions for f in found)
    worst = max(f.max_abs_err_vs_float64 for f in found)
    return (f"the reference is not finite at {n} output position(s) where its float64 run is; the submission "
            f"is finite there and judged against float64 (max abs error {worst:.3g}), float64 being the judge "
            f"where the reference is inexact")
