"""The built-in backends. Deeper support (lowering, sanitizers, simulators) lives in the tools that
use these capability flags."""

from __future__ import annotations

from tools.backends.base import Backend, DeviceInfo, RunSetup

_SHIM = "tools.harness.cuda_shim"


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
            preludes=(_SHIM,),
            interpreted=True,
            note="Triton interpreter (TRITON_INTERPRET=1) on CPU; device='cuda' requests mapped to CPU",
        )


class PallasBackend(Backend):
    name = "pallas"
    markers = (r"pallas_call", r"jax\.experimental\s+import\s+pallas", r"jax\.experimental\.pallas")
    priority = 20
    supports_cpu_run = True
    supports_static_compile = True
    supports_sanitizer = True

    def run_setup(self, device: DeviceInfo) -> RunSetup:
        if device.has_gpu:
            return RunSetup(can_run=True)
        return RunSetup(can_run=True, env=(("JAX_PLATFORMS", "cpu"),), preludes=(_SHIM,), interpreted=True,
                        note="Pallas interpreter on CPU")


class CudaBackend(Backend):
    name = "cuda"
    markers = (r"load_inline", r"cpp_extension", r"__global__", r"<<<")
    priority = 30
    supports_static_compile = True
    supports_sanitizer = True

    def run_setup(self, device: DeviceInfo) -> RunSetup:
        if device.has_gpu:
            return RunSetup(can_run=True)
        return RunSetup(can_run=False, why_not="CUDA C kernels need a CUDA device and a CUDA build of torch; "
                        "this machine has neither")
