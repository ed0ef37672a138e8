"""Run untrusted submission code in child processes with time, memory and environment limits.

The parent-side names (``SandboxWorker`` and its results) load on first use: the child imports
modules of this package too (``libraries``, ``own_modules``, ``measure``) and must not pay for the
parent's worker, seccomp and cgroup code at every start (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reviewer.core.limits import SandboxLimits
    from tools.engine.sandbox.worker import CallResult, ChildCrash, SandboxWorker

__all__ = ["CallResult", "ChildCrash", "SandboxLimits", "SandboxWorker"]

_HOME = {"CallResult": "tools.engine.sandbox.worker", "ChildCrash": "tools.engine.sandbox.worker",
         "SandboxWorker": "tools.engine.sandbox.worker", "SandboxLimits": "reviewer.core.limits"}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
