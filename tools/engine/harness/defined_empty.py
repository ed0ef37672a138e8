"""Inputs made with ``torch.empty`` (or ``numpy.empty``) hold defined values, so a case's inputs are a
function of its seed.

GPU MODE tasks hand the submission its output buffers from ``generate_input`` (``torch.empty(...)``),
and KernelBench/manifest ``get_inputs`` sometimes do the same. Uninitialised memory holds whatever the
allocator last freed there, often the right answer of an earlier call, so a kernel that never writes
part of its output could pass or fail by chance (measured: a GPU MODE layout probe passed 1 of 4 runs
of the same seed). While the reference child makes a case, every ``empty`` allocation is filled with a
poison value instead: NaN for floating and complex dtypes, -1 (all bits set) for signed integers, the
largest value for unsigned ones, True for bool. An output the kernel never writes then shows as NaN or
as a value nothing computes, every time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

_TORCH = ("empty", "empty_like", "empty_strided")


def _poison_tensor(t: Any) -> Any:
    if not isinstance(t, torch.Tensor) or t.numel() == 0:
        return t
    if t.is_floating_point() or t.is_complex():
        t.fill_(float("nan"))
    elif t.dtype == torch.bool:
        t.fill_(True)
    elif t.dtype in (torch.uint8, torch.uint16, torch.uint32, torch.uint64):
        t.fill_(torch.iinfo(t.dtype).max)
    else:
        try:
            t.fill_(-1)
        except (RuntimeError, TypeError):  # quantised or exotic dtypes: left as allocated
            pass
    return t


def _poison_array(a: Any) -> Any:
    if not isinstance(a, np.ndarray) or a.size == 0:
        return a
    kind = a.dtype.kind
    if kind in "fc":
        a.fill(np.nan)
    elif kind == "b":
        a.fill(True)
    elif kind == "u":
        a.fill(np.iinfo(a.dtype).max)
    elif kind == "i":
        a.fill(-1)
    return a


@contextlib.contextmanager
def defined_empty() -> Iterator[None]:
    """Within the block, ``torch.empty``/``empty_like``/``empty_strided``, ``Tensor.new_empty`` and
    ``numpy.empty``/``empty_like`` return poison-filled memory."""
    saved: list[tuple[Any, str, Any]] = []

    def wrap(owner: Any, name: str, poison: Any) -> None:
        original = getattr(owner, name)

        def filled(*args: Any, **kwargs: Any) -> Any:
            return poison(original(*args, **kwargs))

        saved.append((owner, name, original))
        setattr(owner, name, filled)

    try:
        for name in _TORCH:
            wrap(torch, name, _poison_tensor)
        wrap(torch.Tensor, "new_empty", _poison_tensor)
        wrap(np, "empty", _poison_array)
        wrap(np, "empty_like", _poison_array)
        yield
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)
