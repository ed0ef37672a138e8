"""Turning a failed sandbox call into an outcome: fail (the submission's fault) or unverified (we
could not tell). Shared by every tool that runs submission code."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

import torch

from reviewer.core.models import Outcome
from tools.engine.nki.version import UNSUPPORTED_MARK
from tools.engine.sandbox import CallResult
from tools.engine.source import parse as parse_source

# Rationale: under the Triton/Pallas interpreters a program instance costs ~1 ms, so a large case
# can honestly exceed the time limit; on inputs this small it cannot, and a timeout is a hang.
SMALL_INPUT_ELEMENTS = 1 << 18

# Rationale: interpreter time grows about linearly with the program instances launched, and a shared
# machine can be several times slower than when the estimate was measured; a call that had ten
# times its estimate and still did not answer is stuck, not slow.
HANG_SLACK = 10.0

# Rationale: code written for a GPU that checks ``x.is_cuda`` or calls CUDA-only APIs fails on a
# CPU-only reviewer through no fault of its own; those messages make the failure unverified.
_NEEDS_CUDA = re.compile(
    r"(Torch not compiled with CUDA|CUDA driver|no CUDA GPUs|cuda.*not available|is_cuda|"
    r"Found no NVIDIA driver|CUDA_HOME|nvcc|device.*cuda.*expected|Expected.*cuda|"
    r"tensors? (?:must|should) be on (?:the )?(?:GPU|CUDA)|must be a CUDA tensor|"
    r"cannot (?:be )?(?:run|launch).* on CPU)",
    re.IGNORECASE,
)


# What the draft tells a user whose kernel could not run here (docs/bring-your-own-kernel.md).
NEEDS_GPU_REMEDY = ("To review it on CPU, keep GPU-only APIs (CUDA streams, events, graphs, compiled "
                    "extensions) off the path forward() takes; Triton's driver lookups, is_cuda guards and "
                    "torch.cuda queries are answered by the virtual device. Otherwise review on a machine with "
                    "a CUDA GPU (--device cuda).")

# Rationale: Triton finds no driver on a machine without a GPU ("0 active drivers"); torch's CUDA
# headers are incomplete in a CPU-only wheel (c10/cuda/impl/cuda_cmake_macros.h): the machine's limits.
_NO_DEVICE = re.compile(r"(\b0 active drivers|cuda_cmake_macros\.h)")


# Rationale: what the Triton interpreter says it cannot run (inline PTX, libdevice/extern calls) compiles
# and runs on a GPU: the interpreter's limit, not the kernel's failure. A submission that raises this text
# itself only makes its own review unverified, which never accepts it.
_INTERPRETER_LIMIT = re.compile(r"not supported in interpreter mode")


@dataclass(frozen=True)
class Classified:
    outcome: Outcome
    defect: str
    reason: str


def input_elements(meta: dict[str, Any]) -> int:
    return sum(int(torch.Size(d.get("shape", [])).numel()) for d in meta.get("inputs", []) if "shape" in d)


def _timeout(crash_message: str, *, interpreted: bool, input_numel: int, stage: str,
             expected_s: float | None, timeout_s: float | None, estimate_is_bound: bool = True) -> Classified:
    if stage != "import" and expected_s is not None and timeout_s is not None and not estimate_is_bound:
        # Rationale: a configuration larger than nominal in some size may launch far more programs
        # than any run measured (a knob can move the grid onto another dimension); a prediction
        # alone never makes a hang verdict there.
        return Classified("unverified", "timeout",
                          f"{stage} did not finish within {timeout_s:.0f}s; it is larger than any run measured, "
                          f"so its cost is not known in advance: too slow to tell from a hang here")
    if stage != "import" and expected_s is not None and timeout_s is not None:
        if expected_s * HANG_SLACK <= timeout_s:
            return Classified("fail", "hang", f"{stage} did not finish within {timeout_s:.0f}s although a comparable "
                                              f"run predicts about {expected_s:.2g}s ({crash_message})")
        return Classified("unverified", "timeout",
                          f"{stage} did not finish within {timeout_s:.0f}s; a comparable run predicts about "
                          f"{expected_s:.2g}s, too close to the limit to tell a hang from slowness")
    if interpreted and input_numel > SMALL_INPUT_ELEMENTS and stage != "import":
        return Classified("unverified", "timeout",
                          f"{stage} did not finish within the time limit under the CPU interpreter "
                          f"({input_numel} input elements); too slow to tell from a hang here")
    return Classified("fail", "hang", f"{stage} did not finish within the time limit ({crash_message})")


def classify_failure(call: CallResult, *, interpreted: bool, input_numel: int, on_cpu: bool,
                     stage: str, expected_s: float | None = None, timeout_s: float | None = None,
                     estimate_is_bound: bool = True) -> Classified:
    """Outcome of a sandbox call that did not succeed, during ``stage`` (import / run).

    ``expected_s``/``timeout_s``: an estimate of this call's duration (scaled from a measured run of
    the same submission) and the limit it ran under; with both, a timeout is a hang when the limit
    was ``HANG_SLACK`` times the estimate, else too slow to tell. Without them, input size decides."""
    crash = call.crash
    if crash is not None:
        if crash.kind == "timeout":
            return _timeout(crash.message, interpreted=interpreted, input_numel=input_numel, stage=stage,
                            expected_s=expected_s, timeout_s=timeout_s, estimate_is_bound=estimate_is_bound)
        if crash.kind == "startup":
            return Classified("unverified", "sandbox_start", f"the sandbox child could not start: {crash.message}")
        if crash.kind == "oom":
            return Classified("fail", "out_of_memory", f"{stage} ran out of memory: {crash.message}")
        if crash.kind == "disk":
            return Classified("fail", "disk_budget", f"{stage} filled the sandbox's disk budget: {crash.message}")
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
    if etype == "GridLimitError":
        # Rationale: the virtual device refuses a grid a GPU refuses (tools/engine/harness/virtual_gpu.py):
        # the kernel cannot launch at this size on any CUDA GPU. Forging it only fails the submission.
        return Classified("fail", "grid_limit", f"{stage} could not launch: {msg[:400]}")
    if interpreted and _INTERPRETER_LIMIT.search(text):
        return Classified("unverified", "interpreter_limit",
                          f"{stage} uses what the Triton interpreter cannot run ({text[:300]}); code the compiler "
                          f"accepts is checked by running it on a GPU (--device cuda)")
    if on_cpu and (_NEEDS_CUDA.search(text + (err.get("traceback") or "")[-1500:]) or _NO_DEVICE.search(text)):
        return Classified("unverified", "needs_gpu", f"{stage} needs a CUDA device this machine lacks ({text[:300]}). "
                                                     f"{NEEDS_GPU_REMEDY}")
    if etype in ("MemoryError", "OutOfMemoryError") or "can't allocate memory" in msg:
        return Classified("fail", "out_of_memory", f"{stage} ran out of memory: {text[:300]}")
    if etype == "SystemExit":
        return Classified("fail", "process_exit", f"{stage} called sys.exit ({msg or 0})")
    if etype in ("AttributeError", "ImportError", "ModuleNotFoundError", "NameError") and stage == "import":
        return Classified("fail", "import_error", f"{stage} failed: {text[:500]}")
    return Classified("fail", "exception", f"{stage} raised {text[:500]}")


def refuses_dtype(c: Classified | None) -> bool:
    """Whether a call on a dtype the task does not use failed loudly (it raised, e.g. a dtype error
    at trace or launch such as tl.exp on float16).

    Rationale: a loud refusal is a stated limitation a user meets at once, reported as information
    (``unsupported_dtype``) by the generality dtype axis and the numerics fp16/bf16 probes alike;
    only a silent wrong answer in that dtype is a defect."""
    return c is not None and c.outcome == "fail" and c.defect == "exception"


# Rationale: only a ``raise``/``assert`` written in the submission's own file, not chained from
# another error, is the author deciding to refuse an input; anything raised inside Triton, PyTorch
# or numpy (or re-raised from one of their errors) is the kernel breaking on it.
_CHAINED = ("The above exception was the direct cause", "During handling of the above exception")


def deliberate_rejection(call: CallResult, filename: str, source: str) -> str | None:
    """``"file.py:LINE: Type: message"`` when the call failed by a raise/assert statement of
    ``filename`` itself (the innermost frame), else None."""
    if call.crash is not None or not call.error:
        return None
    tb = call.error.get("traceback") or ""
    if not tb or any(marker in tb for marker in _CHAINED):
        return None
    frames = re.findall(r'File "([^"]+)", line (\d+)', tb)
    if not frames:
        return None
    path, line = frames[-1][0], int(frames[-1][1])
    if not path.endswith("/" + filename) and path != filename:
        return None
    if not _is_raise_line(source, line):
        return None
    return f"{filename}:{line}: {call.error.get('type')}: {str(call.error.get('message', ''))[:200]}"


def _is_raise_line(source: str, line: int) -> bool:
    try:
        tree = parse_source(source)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, (ast.Raise, ast.Assert)) and node.lineno <= line <= (node.end_lineno or node.lineno):
            return True
    return False
