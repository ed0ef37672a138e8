"""Turning a failed sandbox call into an outcome: fail (the submission's fault) or unverified (we
could not tell). Shared by every tool that runs submission code."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import torch

from reviewer.models import Outcome
from tools.harness.tensors import flatten
from tools.nki.interp.errors import UNSUPPORTED_MARK
from tools.sandbox import CallResult

# Rationale: under the Triton/Pallas interpreters a program instance costs ~1 ms, so a large case
# can honestly exceed the time limit; on inputs this small it cannot, and a timeout is a hang.
SMALL_INPUT_ELEMENTS = 1 << 18

# Rationale: code written for a GPU that checks ``x.is_cuda`` or calls CUDA-only APIs fails on a
# CPU-only reviewer through no fault of its own; those messages make the failure unverified.
_NEEDS_CUDA = re.compile(
    r"(Torch not compiled with CUDA|CUDA driver|no CUDA GPUs|cuda.*not available|is_cuda|"
    r"Found no NVIDIA driver|CUDA_HOME|nvcc|device.*cuda.*expected|Expected.*cuda|"
    r"tensors? (?:must|should) be on (?:the )?(?:GPU|CUDA)|must be a CUDA tensor|"
    r"cannot (?:be )?(?:run|launch).* on CPU)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Classified:
    outcome: Outcome
    defect: str
    reason: str


def input_elements(meta: dict[str, Any]) -> int:
    return sum(int(torch.Size(d.get("shape", [])).numel()) for d in meta.get("inputs", []) if "shape" in d)


def _numel(value: Any) -> int:
    return sum(int(leaf.numel()) for _, leaf in flatten(value) if isinstance(leaf, torch.Tensor))


def classify_failure(call: CallResult, *, interpreted: bool, input_numel: int, on_cpu: bool,
                     stage: str) -> Classified:
    """Outcome of a sandbox call that did not succeed, during ``stage`` (import / run)."""
    crash = call.crash
    if crash is not None:
        if crash.kind == "timeout":
            if interpreted and input_numel > SMALL_INPUT_ELEMENTS and stage != "import":
                return Classified("unverified", "timeout",
                                  f"{stage} did not finish within the time limit under the CPU interpreter "
                                  f"({input_numel} input elements); too slow to tell from a hang here")
            return Classified("fail", "hang", f"{stage} did not finish within the time limit ({crash.message})")
        if crash.kind == "startup":
            return Classified("unverified", "sandbox_start", f"the sandbox child could not start: {crash.message}")
        if crash.kind == "oom":
            return Classified("fail", "out_of_memory", f"{stage} ran out of memory: {crash.message}")
        if crash.kind == "signal":
            return Classified("fail", "crash", f"{stage} crashed the process: {crash.message}")
        if crash.kind == "protocol":
            return Classified("fail", "harness_tampering",
                              f"{stage} corrupted the reviewer's result channel: {crash.message}")
        return Classified("fail", "process_exit", f"{stage} ended the process: {crash.message}")
    err = call.error or {}
    etype, msg = err.get("type", "Error"), err.get("message", "")
    text = f"{etype}: {msg}"
    if etype.startswith("NkiUnsupported") and UNSUPPORTED_MARK in msg:
        # Rationale: a kernel using an NKI feature our interpreter lacks is not shown wrong by failing there
        # (unverified still keeps the review from accepting, so forging this message gains nothing).
        return Classified("unverified", "interpreter_unsupported", f"{stage} could not be checked: {text[:300]}")
    if on_cpu and _NEEDS_CUDA.search(text + (err.get("traceback") or "")[-1500:]):
        return Classified("unverified", "needs_gpu", f"{stage} needs a CUDA device this machine lacks ({text[:300]})")
    if etype in ("MemoryError", "OutOfMemoryError") or "can't allocate memory" in msg:
        return Classified("fail", "out_of_memory", f"{stage} ran out of memory: {text[:300]}")
    if etype == "SystemExit":
        return Classified("fail", "process_exit", f"{stage} called sys.exit ({msg or 0})")
    if etype in ("AttributeError", "ImportError", "ModuleNotFoundError", "NameError") and stage == "import":
        return Classified("fail", "import_error", f"{stage} failed: {text[:500]}")
    return Classified("fail", "exception", f"{stage} raised {text[:500]}")


def numel_of(value: Any) -> int:
    return _numel(value)
