"""The backend interface: what the reviewer needs to know about a kernel framework.

A backend says whether a submission is written in its framework, how a sandbox child must be set
up to run it on the device at hand (environment, preludes), and what it can do there
(capability flags). Backends are registered through the ``kreview.backends`` entry-point group.
"""

from __future__ import annotations

import re
from abc import ABC
from dataclasses import dataclass
from typing import ClassVar


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


class Backend(ABC):
    name: ClassVar[str]
    #: regexes over the submission's source; the backend with the most hits wins
    markers: ClassVar[tuple[str, ...]] = ()
    #: priority among backends with hits (a Triton kernel called from PyTorch is Triton, not torch)
    priority: ClassVar[int] = 0
    supports_cpu_run: ClassVar[bool] = False
    supports_static_compile: ClassVar[bool] = False
    supports_sanitizer: ClassVar[bool] = False

    def detect(self, source: str) -> int:
        return sum(len(re.findall(m, source, flags=re.MULTILINE)) for m in self.markers)

    def run_setup(self, device: DeviceInfo) -> RunSetup:
        return RunSetup(can_run=True)
