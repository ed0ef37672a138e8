"""The device table (devices.yaml): peak FLOP/s per format and memory bandwidth, with sources."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

_FILE = Path(__file__).with_name("gpus.yaml")


class GpuSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: str
    name: str
    arch: str
    aliases: list[str] = Field(default_factory=list)
    peak_tflops: dict[str, float]
    hbm_gbps: float
    l2_bytes: int | None = None
    sources: list[str]

    @property
    def bandwidth(self) -> float:
        """bytes per second"""
        return self.hbm_gbps * 1e9

    def peak(self, fmt: str) -> float | None:
        """FLOP/s of ``fmt`` (dense), or None if the table has no figure for it."""
        v = self.peak_tflops.get(fmt)
        return None if v is None else v * 1e12


@functools.cache
def devices() -> dict[str, GpuSpec]:
    data = yaml.safe_load(_FILE.read_text())
    return {key: GpuSpec(key=key, **spec) for key, spec in data["devices"].items()}


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def find_device(name: str | None) -> GpuSpec | None:
    """The table's device for a name such as ``"H100"``, ``"NVIDIA H200"`` or a CUDA device name
    (``"NVIDIA H100 80GB HBM3"``); None if nothing matches."""
    if not name:
        return None
    wanted = _norm(name)
    table = devices()
    for dev in table.values():
        if wanted in {_norm(dev.key), _norm(dev.name), *(_norm(a) for a in dev.aliases)}:
            return dev
    # a CUDA device name contains the model token ("NVIDIA H100 80GB HBM3" -> H100)
    tokens = set(wanted.split())
    hits = [dev for dev in table.values() if _norm(dev.key) in tokens]
    return hits[0] if len(hits) == 1 else None
