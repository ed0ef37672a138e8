"""Judging one kernel's compiler figures against one architecture's limits.

Policy (each line is a rubric decision, not a measurement):
- fail ``smem_over_limit``: static + dynamic shared memory above the per-block opt-in maximum (the
  launch fails with "out of resources"; nothing warns at compile time), or ptxas refused a static
  allocation.
- fail ``registers_over_limit`` / ``block_too_large``: registers x threads above the per-block
  register file, or more threads than a block may have (the launch fails).
- pass with the concern ``register_spills`` (a warning finding, shown in the draft): ptxas spilled
  registers to local memory. Every spilled value is a round trip through the L1/L2 hierarchy, a
  performance concern, but the kernel launches and computes the same result; a fail here means
  only that the kernel cannot launch on the target (a correct matmul was rejected for a 20-byte
  spill on sm_80).
- pass otherwise, with occupancy reported; "occupancy limited by registers" is a finding, not a fail
  (many fast kernels deliberately run one or two large blocks per SM).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reviewer.core.models import Outcome
from tools.resources.occupancy import Occupancy, limits_for, occupancy
from tools.engine.compilers.ptxas import KernelUsage

# Rationale: below half the SM's warp slots a memory-bound kernel usually cannot hide DRAM latency;
# above it, low occupancy is a legitimate design choice and only worth an info note.
LOW_OCCUPANCY = 0.5


@dataclass
class Assessment:
    outcome: Outcome
    defect: str | None
    summary: str
    result: dict[str, Any]
    findings: list[dict[str, Any]] = field(default_factory=list)


def _kb(n: int) -> str:
    return f"{n / 1024:.1f} KB" if n >= 1024 else f"{n} B"


def assess(kernel: str, arch: str, usage: KernelUsage, *, threads_per_block: int | None,
           dynamic_smem: int | None, launch_note: str = "",
           static_limit_errors: list[dict[str, Any]] | None = None) -> Assessment:
    """``threads_per_block``/``dynamic_smem`` None: not known statically (CUDA C launch sites)."""
    lim = limits_for(arch)
    regs = usage.registers or 0
    smem_total = usage.smem + (dynamic_smem or 0)
    result: dict[str, Any] = {
        "kernel": kernel, "arch": arch, "registers": regs, "spill_stores": usage.spill_stores,
        "spill_loads": usage.spill_loads, "stack_frame": usage.stack_frame, "static_smem": usage.smem,
        "dynamic_smem": dynamic_smem, "smem_per_block": smem_total, "threads_per_block": threads_per_block,
        "cmem": usage.cmem, "barriers": usage.barriers, "ptxas_other": usage.other, "ptxas_notes": usage.notes,
    }
    where = f"{kernel} on {arch}" + (f" ({launch_note})" if launch_note else "")
    figures = (f"{regs} registers/thread, {usage.spill_stores} B spill stores + {usage.spill_loads} B spill loads, "
               f"{_kb(usage.smem)} static" + (f" + {_kb(dynamic_smem)} dynamic" if dynamic_smem is not None else "")
               + " shared memory" + (f", {threads_per_block} threads/block" if threads_per_block else ""))
    findings: list[dict[str, Any]] = []
    occ: Occupancy | None = None
    if arch.startswith("gfx"):
        return _assess_amd(where, usage, smem_total, result)
    if lim is None:
        result["occupancy"] = None
        return Assessment("info", None, f"{where}: {figures}; no limits table for {arch}, occupancy not computed",
                          result)
    result["limits"] = {"smem_per_block_optin": lim.smem_per_block_optin, "smem_per_sm": lim.smem_per_sm,
                        "max_regs_per_block": lim.max_regs_per_block, "source": lim.source}
    if static_limit_errors:
        e = static_limit_errors[0]
        msg = (f"{where}: ptxas refused {e['used']} bytes of static {e['space']} memory (limit {e['limit']} bytes "
               "without dynamic allocation and an opt-in)")
        findings.append({"severity": "error", "category": "smem_over_limit", "message": msg})
        return Assessment("fail", "smem_over_limit", msg, result, findings)
    if threads_per_block:
        occ = occupancy(arch, threads_per_block=threads_per_block, registers_per_thread=regs,
                        smem_per_block=smem_total)
        result["occupancy"] = occ.model_dump()
    else:
        result["occupancy"] = None
        if smem_total > lim.smem_per_block_optin:
            occ = Occupancy(arch=lim.arch, threads_per_block=0, registers_per_thread=regs, smem_per_block=smem_total,
                            launchable=False, limiter="shared_memory",
                            why_not=f"{smem_total} bytes of shared memory per block (limit {lim.smem_per_block_optin})")
    if occ is not None and not occ.launchable:
        defect = {"shared_memory": "smem_over_limit", "registers": "registers_over_limit"}.get(occ.limiter,
                                                                                             "block_too_large")
        msg = f"{where} cannot launch: {occ.why_not}; {figures}"
        if defect == "smem_over_limit":
            msg = (f"{where} needs {_kb(smem_total)} of shared memory per block, over the {arch} limit of "
                   f"{_kb(lim.smem_per_block_optin)} (the launch fails with 'out of resources'); {figures}")
        findings.append({"severity": "error", "category": defect, "message": msg})
        return Assessment("fail", defect, msg, result, findings)
    occ_text = ""
    if occ is not None:
        occ_text = (f"; theoretical occupancy {occ.occupancy:.0%} ({occ.blocks_per_sm} blocks, "
                    f"{occ.warps_per_sm} warps per SM, limited by {occ.limiter.replace('_', ' ')})")
        if occ.limiter == "registers":
            sev = "warning" if occ.occupancy < LOW_OCCUPANCY else "info"
            findings.append({"severity": sev, "category": "occupancy_limited_by_registers",
                             "message": f"{where}: occupancy {occ.occupancy:.0%} is limited by registers "
                                        f"({regs}/thread allow {occ.limits.get('registers')} blocks of "
                                        f"{threads_per_block} threads per SM; warps alone would allow "
                                        f"{occ.limits.get('warps')})"})
    else:
        occ_text = "; occupancy not computed (block size not known statically)"
    if usage.spill_bytes > 0:
        msg = (f"{where} spills registers to local memory: {usage.spill_stores} B stores + {usage.spill_loads} B "
               f"loads per thread ({regs} registers/thread){occ_text}")
        findings.append({"severity": "warning", "category": "register_spills", "message": msg})
        return Assessment("pass", "register_spills", f"{msg} (a performance concern: it launches and fits the "
                          f"limits)", result, findings)
    if usage.stack_frame > 0:
        findings.append({"severity": "info", "category": "local_memory",
                         "message": f"{where} keeps a {usage.stack_frame} B per-thread stack frame in local memory "
                                    "(arrays indexed dynamically, or calls), without spills"})
    return Assessment("pass", None, f"{where}: {figures}{occ_text}", result, findings)


def _assess_amd(where: str, usage: KernelUsage, lds: int, result: dict[str, Any]) -> Assessment:
    from tools.resources.amdgcn import LDS_PER_WORKGROUP

    waves = usage.other.get("waves_per_simd")
    figures = (f"{usage.registers} VGPRs, {usage.other.get('sgprs', '?')} SGPRs, {usage.other.get('vgpr_spill_count', 0)} "
               f"spilled VGPRs, {_kb(lds)} LDS; compiler occupancy {waves} waves per SIMD")
    if lds > LDS_PER_WORKGROUP:
        msg = f"{where} needs {_kb(lds)} of LDS per workgroup, over the {_kb(LDS_PER_WORKGROUP)} limit; {figures}"
        return Assessment("fail", "smem_over_limit", msg, result,
                          [{"severity": "error", "category": "smem_over_limit", "message": msg}])
    if usage.spill_bytes > 0:
        msg = f"{where} spills registers to scratch memory: {figures}"
        return Assessment("pass", "register_spills", f"{msg} (a performance concern: it launches and fits the "
                          f"limits)", result, [{"severity": "warning", "category": "register_spills", "message": msg}])
    return Assessment("pass", None, f"{where}: {figures}", result)
