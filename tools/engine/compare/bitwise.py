"""Bitwise equality of nested outputs (NaN payloads and the sign of zero included): what
"deterministic" and "the same inputs" mean."""

from __future__ import annotations

from typing import Any

import torch

from tools.engine.harness.tensors import flatten


def _bytes(t: torch.Tensor) -> torch.Tensor:
    return t.detach().cpu().contiguous().reshape(-1).view(torch.uint8)


def bitwise_equal(a: Any, b: Any) -> bool:
    """True when ``a`` and ``b`` have the same structure and every tensor the same dtype, shape and bits."""
    fa = flatten(a if isinstance(a, (list, tuple)) else [a])
    fb = flatten(b if isinstance(b, (list, tuple)) else [b])
    if [p for p, _ in fa] != [p for p, _ in fb]:
        return False
    for (_, x), (_, y) in zip(fa, fb, strict=True):
        if isinstance(x, torch.Tensor) != isinstance(y, torch.Tensor):
            return False
        if not isinstance(x, torch.Tensor):
            if x != y:
                return False
            continue
        if x.dtype != y.dtype or tuple(x.shape) != tuple(y.shape):
            return False
        if x.numel() and not torch.equal(_bytes(x), _bytes(y)):
            return False
    return True


def differing_elements(a: torch.Tensor, b: torch.Tensor) -> int:
    """How many elements of two same-shaped tensors differ in their bits."""
    size = a.element_size()
    x, y = _bytes(a).view(-1, size), _bytes(b).view(-1, size)
    return int((x != y).any(dim=1).sum())
