"""Which device the sandbox children will run kernels on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reviewer.core.errors import UsageError
from tools.engine.runsetup import DeviceInfo


# Rationale: the nodes without which no GPU runtime torch can use is reachable: the NVIDIA driver's control
# node and per-GPU nodes, ROCm's kfd, WSL's dxg. Where none exists, "auto" is the CPU without importing torch.
GPU_NODE_PATTERNS = ("nvidiactl", "nvidia[0-9]*", "kfd", "dxg")


def may_have_gpu(dev: Path = Path("/dev")) -> bool:
    """Whether any GPU driver's device node is present (then only torch can say whether it sees a GPU)."""
    return any(next(dev.glob(pattern), None) is not None for pattern in GPU_NODE_PATTERNS)


def _uuid(props: Any) -> str | None:
    raw = getattr(props, "uuid", None)
    if raw is None:
        return None
    text = str(raw)
    return text if text.startswith(("GPU-", "MIG-")) else f"GPU-{text}"


def _bus_id(props: Any) -> str | None:
    try:
        return f"{props.pci_domain_id:04x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0"
    except (AttributeError, TypeError, ValueError):
        return None


def detect_device(wanted: str = "auto") -> DeviceInfo:
    """``auto``: the current CUDA device when torch sees one, else the CPU; ``cuda``/``cuda:N``: that GPU
    (a usage error when there is none); ``cpu``: the CPU even on a GPU machine."""
    kind, _, index_text = wanted.partition(":")
    if kind == "cpu":
        return DeviceInfo(kind="cpu", name="cpu (asked for with --device cpu)")
    if kind == "auto" and not may_have_gpu():
        # no GPU driver's device node: torch could see no device either, and is not imported for that
        return DeviceInfo(kind="cpu", name="cpu (no CUDA device)")
    import torch

    has_cuda = torch.cuda.is_available()
    if kind == "cuda" and not has_cuda:
        raise UsageError(f"--device {wanted} was asked for, but torch sees no CUDA device here")
    if not has_cuda:
        return DeviceInfo(kind="cpu", name="cpu (no CUDA device)")
    count = torch.cuda.device_count()
    idx = int(index_text) if index_text else torch.cuda.current_device()
    if not 0 <= idx < count:
        raise UsageError(f"--device {wanted}: torch sees {count} CUDA device(s), numbered 0 to {count - 1}")
    props = torch.cuda.get_device_properties(idx)
    return DeviceInfo(kind="cuda", name=torch.cuda.get_device_name(idx),
                      capability=tuple(torch.cuda.get_device_capability(idx)),  # type: ignore[arg-type]
                      index=idx, uuid=_uuid(props), bus_id=_bus_id(props))
