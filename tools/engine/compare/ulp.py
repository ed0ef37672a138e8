"""Units in the last place between two arrays of the same floating dtype.

numpy's own helpers refuse bfloat16 and float8, so every dtype goes through one mapping: the bits
read as a sign-magnitude integer become an ordered two's-complement integer, whose differences
count representable values between the two numbers (+0 and -0 are the same point).
"""

from __future__ import annotations

import numpy as np
import torch

_VIEWS = {
    torch.float64: (torch.int64, 64),
    torch.float32: (torch.int32, 32),
    torch.float16: (torch.int16, 16),
    torch.bfloat16: (torch.int16, 16),
}
for _name in ("float8_e4m3fn", "float8_e5m2"):
    if hasattr(torch, _name):
        _VIEWS[getattr(torch, _name)] = (torch.int8, 8)


def _ordered(t: torch.Tensor) -> torch.Tensor:
    t = t.detach().cpu().contiguous()
    view, nbits = _VIEWS[t.dtype]
    raw = t.view(view).to(torch.int64)
    mask = (1 << (nbits - 1)) - 1
    return torch.where(raw < 0, -(raw & mask), raw)


def _distance(a: torch.Tensor, b: torch.Tensor, nbits: int) -> torch.Tensor:
    """|a - b| of two ordered-integer tensors: int64 below 64 bits. Two 64-bit values can be up to
    2^64 apart, past int64: there the count is float64, computed in int64 where it fits (exact below
    2^53, correctly rounded above), not as a float64 difference of the two ordered values, which would
    round away every count below about 2^10 near 1.0."""
    if nbits < 64:
        return (a - b).abs()
    rough = (a.double() - b.double()).abs()
    return torch.where(rough < 2.0**62, (a - b).abs().double(), rough)


def ulp_distance(actual: torch.Tensor, expected: torch.Tensor) -> np.ndarray:
    """Elementwise ULP distance in ``expected``'s dtype (``actual`` is cast to it first): int64, or
    float64 for float64 tensors.

    Positions where either side is NaN get -1: NaNs are matched separately by the caller."""
    if expected.dtype not in _VIEWS:
        raise TypeError(f"ULP distance is defined for float64/32/16, bfloat16 and float8, not {expected.dtype}")
    a = actual.to(expected.dtype)
    d = _distance(_ordered(a), _ordered(expected), _VIEWS[expected.dtype][1])
    nan = torch.isnan(a).cpu() | torch.isnan(expected).cpu()
    return torch.where(nan, torch.full_like(d, -1), d).numpy()
