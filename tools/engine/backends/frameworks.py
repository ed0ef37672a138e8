"""The built-in backends without modules of their own (torch, Triton, and the fallback for an
unrecognised framework). Pallas and CUDA live in
tools/engine/backends/pallas.py and tools/engine/backends/cuda.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

import tools.engine.backends.compute_sanitizer as compute_sanitizer
from tools.engine.backends.base import Backend, CheckMode, ModeRun

from tools.engine.runsetup import DeviceInfo, RunSetup

if TYPE_CHECKING:
    from tools.engine.harness.case import Case
    from tools.engine.session import ReferenceRun
    from tools.engine.tool import ToolContext

_SHIM = "tools.engine.harness.cuda_shim"
_VIRTUAL_GPU = "tools.engine.harness.virtual_gpu"
_INTERPRETER_GUARD = "tools.engine.harness.interpreter_guard"


class TorchBackend(Backend):
    """Plain PyTorch: no custom kernel at all."""

    name = "torch"
    markers = (r"^\s*import torch", r"^\s*from torch")
    priority = 0
    custom_kernel = False
    launch_count = "counted"
    launches_show_skipped_work = True

    def run_setup(self, device: DeviceInfo) -> RunSetup:
        if device.has_gpu:
            return RunSetup(can_run=True)
        return RunSetup(can_run=True, preludes=(_SHIM,), note="device='cuda' requests mapped to CPU")


class UnknownBackend(TorchBackend):
    """A submission whose framework was not recognised (no backend's markers in its source): it runs
    like plain torch, but nothing says it has no kernel of its own, and a call that launched nothing
    is not taken for skipped work. Not registered: ``backend_for`` falls back to it."""

    custom_kernel = True
    launches_show_skipped_work = False


class TritonBackend(Backend):
    name = "triton"
    markers = (r"@triton\.jit", r"^\s*import triton", r"^\s*from triton", r"\btl\.")
    priority = 10
    supports_static_compile = True
    supports_sanitizer = True
    launch_instruments = ("triton_launches",)
    launch_count = "counted"
    launches_show_skipped_work = True
    triton_compiled = True

    def check_modes(self, ctx: ToolContext) -> list[CheckMode]:
        """On a GPU, compiled kernels under compute-sanitizer (the CPU sanitizer, tools/memcheck, runs
        the interpreter on any machine); under the interpreter there is nothing compiled to check."""
        if not ctx.device.has_gpu or ctx.setup.interpreted:
            return []
        return compute_sanitizer.modes(ctx)

    def run_mode(self, ctx: ToolContext, mode: CheckMode, case: Case, ref: ReferenceRun) -> ModeRun:
        return compute_sanitizer.run_mode(ctx, mode, case, ref,
                                          compute_sanitizer.same_file_lines(ctx.submission.submission_file))

    def run_setup(self, device: DeviceInfo) -> RunSetup:
        if device.has_gpu:
            return RunSetup(can_run=True, note=f"compiled Triton on {device.name}")
        return RunSetup(
            can_run=True,
            env=(("TRITON_INTERPRET", "1"),),
            # Rationale: NOTES.md: the Triton interpreter does bf16 arithmetic on raw bits; a bf16
            # mismatch there says nothing about the kernel.
            unfaithful_dtypes=(("bfloat16", "the Triton CPU interpreter computes bf16 on raw bits"),),
            # out-of-bounds accesses land in guard zones, never in memory the kernel does not own
            preludes=(_SHIM, _VIRTUAL_GPU, _INTERPRETER_GUARD),
            interpreted=True,
            note="Triton interpreter (TRITON_INTERPRET=1) on CPU; device='cuda' requests mapped to CPU; "
                 "Triton's driver API and torch.cuda queries answered by a virtual device for the review "
                 "target (tools/engine/harness/virtual_gpu.py)",
        )


