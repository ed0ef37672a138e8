"""Theoretical occupancy from registers, shared memory and block size, per architecture.

The arithmetic follows the rules NVIDIA documents for its occupancy calculator (CUDA C++ Best
Practices Guide, "Calculating Occupancy", and the toolkit's cuda_occupancy.h), written here from
those rules: registers are allocated per warp in units of ``reg_alloc_unit``; each of the SM's
``sub_partitions`` warp schedulers owns a quarter of the register file; shared memory is allocated
per block in units of ``smem_alloc_unit`` plus a per-block system reservation; the resident blocks
per SM are the minimum of the warp, block, register and shared-memory limits. The limits
themselves are data (gpu_limits.yaml, with their sources).
"""

from __future__ import annotations

import functools
import math
import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict

_LIMITS_FILE = Path(__file__).resolve().parents[1] / "engine" / "gpu_limits.yaml"

Limiter = Literal["warps", "blocks", "registers", "shared_memory", "none"]


class ArchLimits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    arch: str
    name: str
    source: str
    warp_size: int
    max_threads_per_block: int
    max_threads_per_sm: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    regs_per_sm: int
    max_regs_per_block: int
    max_regs_per_thread: int
    reg_alloc_unit: int
    sub_partitions: int
    smem_per_sm: int
    smem_per_block_optin: int
    smem_per_block_default: int
    smem_alloc_unit: int
    reserved_smem_per_block: int


class Occupancy(BaseModel):
    """Resident blocks and warps per SM for one kernel configuration, and what limits them."""

    model_config = ConfigDict(extra="forbid")

    arch: str
    threads_per_block: int
    registers_per_thread: int
    smem_per_block: int
    launchable: bool
    why_not: str = ""
    blocks_per_sm: int = 0
    warps_per_sm: int = 0
    occupancy: float = 0.0
    limiter: Limiter = "none"
    limits: dict[str, int] = {}
    """resident blocks allowed by each resource on its own"""


@functools.cache
def all_limits() -> dict[str, ArchLimits]:
    data = yaml.safe_load(_LIMITS_FILE.read_text())
    return {arch: ArchLimits(arch=arch, **{k: v for k, v in spec.items()}) for arch, spec in data["arches"].items()}


def normalize_arch(arch: str | int) -> str:
    """``"sm_90a"``, ``"sm90"``, ``"90"``, ``90``, ``"compute_90"`` -> ``"sm_90"``."""
    m = re.search(r"(\d{2,3})", str(arch))
    if m is None:
        raise ValueError(f"not an NVIDIA architecture: {arch!r}")
    return f"sm_{m.group(1)}"


def limits_for(arch: str | int) -> ArchLimits | None:
    return all_limits().get(normalize_arch(arch))


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def occupancy(arch: str | int, *, threads_per_block: int, registers_per_thread: int,
              smem_per_block: int) -> Occupancy:
    """Theoretical occupancy. ``smem_per_block`` is static + dynamic shared memory (without the
    system reservation, which is added here). Raises KeyError for an architecture not in the table."""
    lim = limits_for(arch)
    if lim is None:
        raise KeyError(f"no limits recorded for {arch!r} (known: {', '.join(all_limits())})")
    base = {"arch": lim.arch, "threads_per_block": threads_per_block,
            "registers_per_thread": registers_per_thread, "smem_per_block": smem_per_block}
    if threads_per_block < 1 or threads_per_block > lim.max_threads_per_block:
        return Occupancy(**base, launchable=False,
                         why_not=f"{threads_per_block} threads per block (limit {lim.max_threads_per_block})")
    if smem_per_block > lim.smem_per_block_optin:
        return Occupancy(**base, launchable=False, limiter="shared_memory",
                         why_not=f"{smem_per_block} bytes of shared memory per block "
                                 f"(limit {lim.smem_per_block_optin} on {lim.arch})")
    warps = math.ceil(threads_per_block / lim.warp_size)
    limits: dict[str, int] = {"blocks": lim.max_blocks_per_sm, "warps": lim.max_warps_per_sm // warps}
    if registers_per_thread > 0:
        per_warp = _round_up(registers_per_thread * lim.warp_size, lim.reg_alloc_unit)
        # The launch check assumes a block's warps are spread over all sub-partitions.
        per_block_hw = per_warp * _round_up(warps, lim.sub_partitions)
        if per_warp * warps > lim.max_regs_per_block or per_block_hw > lim.max_regs_per_block:
            return Occupancy(**base, launchable=False, limiter="registers",
                             why_not=f"{registers_per_thread} registers x {threads_per_block} threads needs "
                                     f"{max(per_warp * warps, per_block_hw)} registers per block "
                                     f"(limit {lim.max_regs_per_block})")
        warps_per_partition = (lim.regs_per_sm // lim.sub_partitions) // per_warp
        limits["registers"] = (warps_per_partition * lim.sub_partitions) // warps
    smem_alloc = _round_up(smem_per_block + lim.reserved_smem_per_block, lim.smem_alloc_unit)
    if smem_alloc > 0:
        limits["shared_memory"] = lim.smem_per_sm // smem_alloc
    blocks = min(limits.values())
    # Rationale: on a tie the hardware's own caps win, so "limited by registers" (or shared memory)
    # is only said when that resource alone keeps blocks off the SM.
    order = ("warps", "blocks", "registers", "shared_memory")
    limiter = next(k for k in order if limits.get(k) == blocks)
    warps_resident = blocks * warps
    return Occupancy(**base, launchable=blocks > 0, why_not="" if blocks > 0 else "no block fits on an SM",
                     blocks_per_sm=blocks, warps_per_sm=warps_resident,
                     occupancy=round(warps_resident / lim.max_warps_per_sm, 4), limiter=limiter, limits=limits)
