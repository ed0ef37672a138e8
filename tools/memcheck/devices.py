"""The same kernel on two devices: compiled on the GPU (correctness) and interpreted on the CPU (the
sanitizer's run). Where their verdicts on the nominal inputs differ, the review says so with both
results and what usually explains it; the GPU run decides, this item explains."""

from __future__ import annotations

from dataclasses import dataclass

# Rationale: the usual reasons a compiled Triton kernel and the interpreter disagree, each a property of
# the kernel or of the interpreter, never of the machine's load.
CAUSES = ("a race between programs (the interpreter runs them one at a time, the GPU concurrently)",
          "tl.dot in TF32 or a reduced-precision accumulator on the GPU (the interpreter computes in full fp32)",
          "bfloat16 arithmetic (the interpreter operates on raw bits)",
          "an out-of-bounds access whose garbage differs between the two memories",
          "atomics whose order changes the rounding of a sum")


@dataclass(frozen=True)
class Divergence:
    summary: str
    gpu: str
    interpreter: str
    causes: tuple[str, ...] = CAUSES


def compare_verdicts(device: str, gpu_failed: bool, interpreter_ok: bool, interpreter_summary: str,
                     case_label: str) -> Divergence | None:
    """None when both runs agree; else what each found."""
    if gpu_failed == (not interpreter_ok):
        return None
    gpu = "fails correctness" if gpu_failed else "passes correctness"
    interp = ("matches the reference" if interpreter_ok else f"does not match the reference: {interpreter_summary}")
    return Divergence(summary=f"on {case_label} the compiled kernel on the {device} {gpu}, while the Triton "
                              f"interpreter on the CPU {interp}; the GPU run decides",
                      gpu=gpu, interpreter=interp)
