"""Arrays that are not torch tensors (JAX, numpy) crossing the harness, which speaks torch.

Inputs and outputs travel between the children as torch files. A reference or submission written
in JAX makes and returns ``jax.Array`` values: they become tensors at the boundary (dtype kept,
bf16 and fp8 included: ml_dtypes on the numpy side, a same-width integer view in between), and the
*kind* of every input leaf is recorded so each side gets back the kind its inputs were made as.
JAX is never imported here unless a JAX value is actually present.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_TORCH_UINT = {1: torch.uint8, 2: torch.uint16, 4: torch.uint32, 8: torch.uint64}


def kind_of(value: Any) -> str | None:
    """"jax", "numpy" or None (a torch tensor, a scalar, anything else)."""
    if isinstance(value, torch.Tensor):
        return None
    if isinstance(value, np.ndarray):
        return "numpy"
    jax = sys.modules.get("jax")
    if jax is not None and isinstance(value, jax.Array):
        return "jax"
    return None


def _torch_dtype(np_dtype: np.dtype) -> torch.dtype:
    dt = getattr(torch, np_dtype.name, None)
    if not isinstance(dt, torch.dtype):
        raise TypeError(f"no torch dtype for {np_dtype.name}")
    return dt


def numpy_to_torch(arr: np.ndarray) -> torch.Tensor:
    arr = np.ascontiguousarray(arr)
    dt = _torch_dtype(arr.dtype)
    if arr.dtype.kind == "V" or arr.dtype.type.__module__.startswith("ml_dtypes"):
        # Rationale: torch.from_numpy refuses ml_dtypes (bf16, fp8); the bits are the same, so go
        # through an unsigned integer view of the same width.
        raw = torch.from_numpy(arr.view(_UINT[arr.dtype.itemsize]).copy())
        return raw.view(dt)
    return torch.from_numpy(arr.copy())


def _np_dtype(dt: torch.dtype) -> np.dtype:
    name = str(dt).removeprefix("torch.")
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, name))


def torch_to_numpy(t: torch.Tensor) -> np.ndarray:
    t = t.detach().to("cpu").contiguous()
    target = _np_dtype(t.dtype)
    if target.type.__module__.startswith("ml_dtypes"):
        return t.view(_TORCH_UINT[t.element_size()]).numpy().copy().view(target)
    return t.numpy().copy()


def to_torch(value: Any) -> torch.Tensor:
    """A plain CPU tensor with the same values and dtype as a JAX or numpy array."""
    return numpy_to_torch(np.asarray(value))


def from_torch(t: torch.Tensor, kind: str) -> Any:
    arr = torch_to_numpy(t)
    if kind == "numpy":
        return arr
    if kind == "jax":
        import jax.numpy as jnp

        return jnp.asarray(arr)
    raise ValueError(f"unknown array kind {kind!r}")


def is_floating(dt: np.dtype) -> bool:
    return dt.kind == "f" or (dt.type.__module__.startswith("ml_dtypes") and "float" in dt.name)


def cast(value: Any, dtype: torch.dtype) -> Any:
    """A floating JAX/numpy array cast to ``dtype`` in its own framework (others unchanged)."""
    return value.astype(_np_dtype(dtype)) if is_floating(np.dtype(value.dtype)) else value


def map_leaves(value: Any, fn: Any, prefix: str = "") -> Any:
    if isinstance(value, list):
        return [map_leaves(v, fn, f"{prefix}{i}.") for i, v in enumerate(value)]
    if isinstance(value, tuple):
        return tuple(map_leaves(v, fn, f"{prefix}{i}.") for i, v in enumerate(value))
    if isinstance(value, dict):
        return {k: map_leaves(v, fn, f"{prefix}{k}.") for k, v in value.items()}
    return fn(prefix[:-1] or "0", value)


@contextlib.contextmanager
def wide_floats(dtype: str | None) -> Iterator[None]:
    """While the reference runs for the float64 judge: JAX with x64 enabled, so a JAX reference's
    float64 inputs stay float64 (without it JAX silently computes, and returns, float32); and a torch
    reference's own upcast to float32 (``x.float()``, ``x.to(torch.float32)``, written to widen fp16
    inputs) leaves a float64 tensor float64 instead of rounding it back, so the same function is
    evaluated with less rounding. NumPy needs nothing for float64 inputs (an ``astype(np.float32)``
    there cannot be intercepted: that reference has no float64 run)."""
    if dtype != "float64":
        yield
        return
    with _torch_upcasts_keep_float64():
        jax = sys.modules.get("jax")
        if jax is None or not hasattr(jax, "enable_x64"):
            yield
            return
        with jax.enable_x64(True):
            yield


def _f32_to_f64(value: Any) -> Any:
    return torch.float64 if value is torch.float32 else value


@contextlib.contextmanager
def _torch_upcasts_keep_float64() -> Iterator[None]:
    original_float, original_to = torch.Tensor.float, torch.Tensor.to

    def float_(self: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        return self if self.dtype == torch.float64 and not args and not kwargs else original_float(self, *args, **kwargs)

    def to(self: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        if self.dtype == torch.float64:
            args = tuple(_f32_to_f64(a) for a in args)
            if "dtype" in kwargs:
                kwargs["dtype"] = _f32_to_f64(kwargs["dtype"])
        return original_to(self, *args, **kwargs)

    torch.Tensor.float, torch.Tensor.to = float_, to  # type: ignore[method-assign]
    try:
        yield
    finally:
        torch.Tensor.float, torch.Tensor.to = original_float, original_to  # type: ignore[method-assign]

