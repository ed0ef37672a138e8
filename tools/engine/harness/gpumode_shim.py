"""Stand-ins for the helper modules GPU MODE tasks import (``utils``, ``task``) when a task
directory does not ship its own copy (in reference-kernels they live one folder up).

Written from the documented behaviour: ``make_match_reference(ref, rtol=1e-5, atol=1e-8)`` returns
``check(data, output) -> (ok, message)`` comparing with |out-ref| <= atol + rtol*|ref| and treating
matching NaN/inf positions as equal.
"""

from __future__ import annotations

import contextlib
import random
import sys
import types
from typing import Any

import torch


def verbose_allclose(received: torch.Tensor, expected: torch.Tensor, rtol: float = 1e-5,
                     atol: float = 1e-8, max_print: int = 5) -> list[str]:
    if received.shape != expected.shape:
        return [f"SIZE MISMATCH: received {tuple(received.shape)}, expected {tuple(expected.shape)}"]
    r = received.double()
    e = expected.double()
    diff = (r - e).abs()
    tol = atol + rtol * e.abs()
    nan_ok = torch.isnan(r) & torch.isnan(e)
    inf_ok = torch.isinf(r) & torch.isinf(e) & (torch.sign(r) == torch.sign(e))
    bad = ~((diff <= tol) | nan_ok | inf_ok)
    n = int(bad.sum())
    if n == 0:
        return []
    idx = bad.nonzero()[:max_print].tolist()
    shown = [f"at {tuple(i)}: received {r[tuple(i)].item()}, expected {e[tuple(i)].item()}" for i in idx]
    return [f"Number of mismatched elements: {n}", *shown]


def match_reference(data: Any, output: Any, reference: Any, rtol: float = 1e-5, atol: float = 1e-8):
    expected = reference(data)
    reasons = verbose_allclose(output, expected, rtol=rtol, atol=atol)
    if reasons:
        return False, "mismatch found! custom implementation doesn't match reference: " + " ".join(reasons)
    return True, ""


TOLERANCES: list[dict[str, float]] = []


def make_match_reference(reference: Any, **kwargs: Any):
    TOLERANCES.append({k: float(v) for k, v in kwargs.items() if k in ("rtol", "atol")})

    def check(data: Any, output: Any):
        return match_reference(data, output, reference=reference, **kwargs)

    return check


def set_seed(seed: int = 42) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def clear_l2_cache() -> None:
    return None


@contextlib.contextmanager
def DeterministicContext():  # noqa: N802 - the name tasks import
    yield


def install_modules(has_utils: bool, has_task: bool) -> None:
    if not has_utils and "utils" not in sys.modules:
        mod = types.ModuleType("utils")
        for name in ("verbose_allclose", "match_reference", "make_match_reference", "set_seed",
                     "clear_l2_cache", "DeterministicContext"):
            setattr(mod, name, globals()[name])
        sys.modules["utils"] = mod
    if not has_task and "task" not in sys.modules:
        mod = types.ModuleType("task")
        mod.input_t = Any  # type: ignore[attr-defined]
        mod.output_t = Any  # type: ignore[attr-defined]
        mod.TestSpec = dict  # type: ignore[attr-defined]
        sys.modules["task"] = mod
