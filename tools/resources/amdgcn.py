"""Resource figures from the AMDGCN assembly Triton writes for AMD targets (gfx942 and kin).

LLVM's AMDGPU backend prints them as comments and metadata in the assembly itself:
``; NumVgprs: 4``, ``; ScratchSize: 0``, ``; LDSByteSize: 0 bytes/workgroup``, ``; Occupancy: 8``
(waves per SIMD) and ``.vgpr_spill_count:`` / ``.sgpr_spill_count:``.
"""

from __future__ import annotations

import re

from tools.engine.compilers.ptxas import KernelUsage

# Rationale: 64 KiB of LDS per workgroup on CDNA3 (AMD Instinct MI300 ISA reference, "Local Data Share").
LDS_PER_WORKGROUP = 65536
VGPR_BYTES_PER_LANE = 4


def _field(text: str, pattern: str) -> int | None:
    m = re.search(pattern, text, flags=re.MULTILINE)
    return int(m.group(1)) if m else None


def parse_amdgcn(text: str, name: str, arch: str) -> KernelUsage | None:
    vgprs = _field(text, r"^\s*;\s*NumVgprs:\s*(\d+)")
    if vgprs is None:
        return None
    vgpr_spills = _field(text, r"\.vgpr_spill_count:\s*(\d+)") or 0
    other = {k: v for k, v in {
        "sgprs": _field(text, r"^\s*;\s*TotalNumSgprs:\s*(\d+)"),
        "accum_offset_vgprs": _field(text, r"^\s*;\s*AccumOffset:\s*(\d+)"),
        "scratch": _field(text, r"^\s*;\s*ScratchSize:\s*(\d+)"),
        "vgpr_spill_count": vgpr_spills,
        "sgpr_spill_count": _field(text, r"\.sgpr_spill_count:\s*(\d+)"),
        "waves_per_simd": _field(text, r"^\s*;\s*Occupancy:\s*(\d+)"),
    }.items() if v is not None}
    return KernelUsage(name=name, arch=arch, registers=vgprs,
                       smem=_field(text, r"^\s*;\s*LDSByteSize:\s*(\d+)") or 0,
                       spill_stores=vgpr_spills * VGPR_BYTES_PER_LANE, other=other,
                       notes=["AMD: registers are VGPRs; spill bytes are spilled VGPRs x 4 bytes per lane"])
