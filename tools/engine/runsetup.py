"""The device the sandbox children run kernels on, and how a child is set up for a framework there."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DeviceInfo:
    kind: str  # "cpu" or "cuda"
    name: str
    capability: tuple[int, int] | None = None
    index: int | None = None
    """The CUDA index the review was given (``--device cuda:N``), in the reviewer's own enumeration."""
    uuid: str | None = None
    """The GPU's UUID (``GPU-...``): what the sandbox children select it by."""
    bus_id: str | None = None
    """Its PCI address: which ``/dev/nvidia<minor>`` node is this GPU's."""

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
    unfaithful_dtypes: tuple[tuple[str, str], ...] = ()
    """(dtype, why) for dtypes this setup does not compute faithfully: a mismatch in one says nothing
    about the kernel, so the probes do not try it."""

    def unfaithful(self, dtype: str) -> str | None:
        """Why ``dtype`` is not computed faithfully here, or None."""
        return dict(self.unfaithful_dtypes).get(dtype)
