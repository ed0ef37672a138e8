"""The device the sandbox children run kernels on, and how a child is set up for a framework there."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DeviceInfo:
    kind: str  # "cpu" or "cuda"
    name: str
    capability: tuple[int, int] | None = None

    @property
    def has_gpu(self) -> bool:
        return self.kind == "cuda"


@dataclass(frozen=True)
class RunSetup:
    """How to start a child that runs this framework's kernels on a device."""

    can_run: bool
    why_not: str = ""
    env: tuple[tuple[str, str], ...] = ()
    preludes: tuple[str, ...] = ()
    interpreted: bool = False
    note: str = ""
