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


def _ordered(t: torch.Tensor) -> np.ndarray:
    t = t.detach().cpu().contiguous()
    if t.dtype not in _VIEWS:
        raise TypeError(f"ULP distance is defined for float64/32/16, bfloat16 and float8, not {t.dtype}")
    view, nbits = _VIEWS[t.dtype]
    raw = t.view(view).numpy().astype(np.int64)
    mask = np.int64((1 << (nbits - 1)) - 1)
    ordered = np.where(raw < 0, -(raw & mask), raw)
    # 64-bit values can be 2^64 apart: count in float64 there (exact below 2^53 ULPs).
    return ordered.astype(np.float64) if nbits == 64 else ordered


def ulp_distance(actual: torch.Tensor, expected: torch.Tensor) -> np.ndarray:
    """Elementwise ULP distance in ``expected``'s dtype (``actual`` is cast to it first).

    Positions where either side is NaN get -1: NaNs are matched separately by the caller."""
    a = actual.to(expected.dtype)
    d = np.abs(_ordered(a) - _ordered(expected))
    nan = (torch.isnan(a) | torch.isnan(expected)).cpu().numpy()
    return np.where(nan, -1, d)
