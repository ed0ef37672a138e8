"""The built-in backends without modules of their own (torch, Triton, NKI). Pallas and CUDA live in
tools/engine/backends/pallas.py and tools/engine/backends/cuda.py."""

from __future__ import annotations

from tools.engine.backends.base import Backend

from tools.engine.runsetup import DeviceInfo, RunSetup

_SHIM = "tools.engine.harness.cuda_shim"
_VIRTUAL_GPU = "tools.engine.harness.virtual_gpu"


class TorchBackend(Backend):
    """Plain PyTorch: no custom kernel at all."""

    name = "torch"
    markers = (r"^\s*import torch", r"^\s*from torch")
    priority = 0
    supports_cpu_run = True

    def run_setup(self, device: DeviceInfo) -> RunSetup:
        if device.has_gpu:
            return RunSetup(can_run=True)
        return RunSetup(can_run=True, preludes=(_SHIM,), note="device='cuda' requests mapped to CPU")


class TritonBackend(Backend):
    name = "triton"
    markers = (r"@triton\.jit", r"^\s*import triton", r"^\s*from triton", r"\btl\.")
    priority = 10
    supports_cpu_run = True
    supports_static_compile = True
    supports_sanitizer = True

    def run_setup(self, device: DeviceInfo) -> RunSetup:
        if device.has_gpu:
            return RunSetup(can_run=True)
        return RunSetup(
            can_run=True,
            env=(("TRITON_INTERPRET", "1"),),
            preludes=(_SHIM, _VIRTUAL_GPU),
            interpreted=True,
            note="Triton interpreter (TRITON_INTERPRET=1) on CPU; device='cuda' requests mapped to CPU; "
                 "Triton's driver API and torch.cuda queries answered by a virtual device for the review "
                 "target (tools/engine/harness/virtual_gpu.py)",
        )


