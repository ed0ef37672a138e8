"""Occupancy arithmetic, checked by hand against the documented per-architecture limits."""

from __future__ import annotations

import pytest

from tools.resources.assess import assess
from tools.resources.occupancy import limits_for, normalize_arch, occupancy
from tools.engine.compilers.ptxas import KernelUsage


def test_limits_table_values() -> None:
    h, a = limits_for("sm_90a"), limits_for(80)
    assert h is not None and a is not None
    assert (h.smem_per_block_optin, h.smem_per_sm) == (227 * 1024, 228 * 1024)
    assert (a.smem_per_block_optin, a.smem_per_sm) == (163 * 1024, 164 * 1024)
    assert normalize_arch("compute_90") == "sm_90" and limits_for("sm_61") is None


def test_full_occupancy_limited_by_warps() -> None:
    # 128 threads = 4 warps; 64 warp slots -> 16 blocks; 26 regs -> 832 -> 1024 regs/warp, plenty
    o = occupancy("sm_90", threads_per_block=128, registers_per_thread=26, smem_per_block=16)
    assert (o.blocks_per_sm, o.warps_per_sm, o.occupancy, o.limiter) == (16, 64, 1.0, "warps")


def test_register_limited() -> None:
    # 128 regs x 32 = 4096 regs/warp; 16384 per sub-partition -> 4 warps x 4 = 16 warps; 8 warps/block -> 2
    o = occupancy("sm_90", threads_per_block=256, registers_per_thread=128, smem_per_block=0)
    assert (o.limits["registers"], o.blocks_per_sm, o.occupancy, o.limiter) == (2, 2, 0.25, "registers")
    # 72 regs -> 2304 regs/warp (rounded to 256) -> 7 warps per sub-partition -> 28 warps -> 3 blocks of 8
    o = occupancy("sm_80", threads_per_block=256, registers_per_thread=72, smem_per_block=0)
    assert (o.limits["registers"], o.warps_per_sm, o.limiter) == (3, 24, "registers")


def test_shared_memory_limited_and_reservation() -> None:
    # (100000 + 1024 reserved) rounded to 128 = 101120; 233472 // 101120 = 2
    o = occupancy("sm_90", threads_per_block=256, registers_per_thread=32, smem_per_block=100000)
    assert (o.limits["shared_memory"], o.blocks_per_sm, o.limiter) == (2, 2, "shared_memory")


@pytest.mark.parametrize(("arch", "smem", "ok"), [("sm_90", 232448, True), ("sm_90", 232449, False),
                                                  ("sm_80", 166912, True), ("sm_80", 166913, False)])
def test_per_block_shared_memory_limit_is_exact(arch: str, smem: int, ok: bool) -> None:
    o = occupancy(arch, threads_per_block=128, registers_per_thread=32, smem_per_block=smem)
    assert o.launchable is ok and (ok or o.limiter == "shared_memory")


def test_unlaunchable_register_file_and_block_size() -> None:
    o = occupancy("sm_90", threads_per_block=1024, registers_per_thread=255, smem_per_block=0)
    assert not o.launchable and o.limiter == "registers"
    assert not occupancy("sm_90", threads_per_block=2048, registers_per_thread=8, smem_per_block=0).launchable


def test_assess_policy() -> None:
    clean = KernelUsage(name="k", arch="sm_90a", registers=32)
    a = assess("k", "sm_90a", clean, threads_per_block=256, dynamic_smem=0)
    assert a.outcome == "pass" and "occupancy 100%" in a.summary and not a.findings
    spilled = clean.model_copy(update={"spill_stores": 8, "spill_loads": 8})
    spill = assess("k", "sm_90a", spilled, threads_per_block=256, dynamic_smem=0)
    assert spill.outcome == "pass" and spill.defect == "register_spills"  # a concern: it still launches
    assert spill.findings[0]["severity"] == "warning"
    big = assess("k", "sm_90a", clean, threads_per_block=256, dynamic_smem=300_000)
    assert big.outcome == "fail" and big.defect == "smem_over_limit" and "227.0 KB" in big.summary
    heavy = clean.model_copy(update={"registers": 168})
    h = assess("k", "sm_90a", heavy, threads_per_block=256, dynamic_smem=0)
    assert h.outcome == "pass" and h.findings[0]["category"] == "occupancy_limited_by_registers"
    unknown = assess("k", "sm_90", clean, threads_per_block=None, dynamic_smem=None)
    assert unknown.outcome == "pass" and "not known statically" in unknown.summary
