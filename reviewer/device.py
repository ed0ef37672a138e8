"""Which device the sandbox children will run kernels on."""

from __future__ import annotations

from reviewer.core.errors import UsageError
from tools.engine.runsetup import DeviceInfo


def detect_device(wanted: str = "auto") -> DeviceInfo:
    import torch

    has_cuda = torch.cuda.is_available()
    if wanted == "cuda" and not has_cuda:
        raise UsageError("--device cuda was asked for, but torch sees no CUDA device here")
    if has_cuda and wanted in ("auto", "cuda"):
        idx = torch.cuda.current_device()
        return DeviceInfo(kind="cuda", name=torch.cuda.get_device_name(idx),
                          capability=tuple(torch.cuda.get_device_capability(idx)))  # type: ignore[arg-type]
    return DeviceInfo(kind="cpu", name="cpu (no CUDA device)")
