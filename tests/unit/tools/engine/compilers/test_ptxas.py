"""ptxas -v reports: figures parsed from real ptxas/nvcc output produced here (tests/data/ptxas), and
live runs of the toolchain where it is installed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import DATA
from tools.engine.compilers import toolchain
from tools.engine.compilers.ptxas import parse_cuobjdump_resources, parse_ptxas

DATA = DATA / "ptxas"


def _read(name: str) -> str:
    return (DATA / name).read_text()


def test_triton_spilling_kernel_figures() -> None:
    r = parse_ptxas(_read("triton_big_row_sm90.log"))
    (k,) = r.kernels
    assert (k.name, k.arch, k.registers, k.barriers) == ("big_row", "sm_90a", 64, 0)
    assert (k.stack_frame, k.spill_stores, k.spill_loads) == (3176, 8160, 10052)
    assert k.other == {"cumulative stack size": 3176} and k.compile_ms == pytest.approx(1035.466)
    assert not r.unparsed and not r.errors


def test_advisory_attached_to_its_kernel_and_cmem_on_sm80() -> None:
    k90 = parse_ptxas(_read("triton_mm_sm90.log")).kernels[0]
    assert k90.registers == 255 and k90.spill_stores == 2484 and k90.spill_loads == 1972
    assert len(k90.notes) == 1 and "C7511" in k90.notes[0]
    k80 = parse_ptxas(_read("triton_mm_sm80.log")).kernels[0]
    assert (k80.arch, k80.registers, k80.cmem) == ("sm_80", 255, {"cmem[0]": 408})


def test_blackwell_ptxas_prefix() -> None:
    (k,) = parse_ptxas(_read("triton_mm_sm100.log")).kernels
    assert (k.arch, k.registers, k.spill_bytes) == ("sm_100a", 230, 0)


def test_nvcc_three_kernels_static_smem_and_stack() -> None:
    r = parse_ptxas(_read("nvcc_three_kernels_sm80.log"))
    by = {k.name: k for k in r.kernels}
    assert set(by) == {"_Z2k1Pfi", "_Z2k2Pfi", "_Z2k3IfEvPT_"}
    assert by["_Z2k1Pfi"].smem == 4096 and by["_Z2k1Pfi"].registers == 10
    assert by["_Z2k2Pfi"].stack_frame == 1024 and by["_Z2k2Pfi"].spill_bytes == 0
    assert by["_Z2k3IfEvPT_"].cmem == {"cmem[0]": 360} and r.gmem == 0


def test_nvcc_limit_error_device_function_and_spills() -> None:
    r = parse_ptxas(_read("nvcc_too_big_sm90.log"))
    (err,) = r.limit_errors
    assert (err.kernel, err.space, err.used, err.limit) == ("_Z7too_bigPf", "shared", 400000, 0xC000)
    assert [f.name for f in r.functions] == ["_Z6helperPfi"]
    lb = r.kernel("_Z2lbPfi", "sm_90")
    assert lb is not None and (lb.spill_stores, lb.spill_loads, lb.registers) == (628, 696, 64)
    assert r.kernel("_Z7too_bigPf").smem == 400000


def test_unknown_ptxas_lines_are_kept_not_dropped() -> None:
    r = parse_ptxas("ptxas info    : Something new in CUDA 14: 3 widgets\n")
    assert r.unparsed == ["Something new in CUDA 14: 3 widgets"] and not r.kernels


def test_cuobjdump_resource_usage() -> None:
    text = (" Function _Z2k1Pfi:\n  REG:10 STACK:0 SHARED:5120 LOCAL:0 CONSTANT[0]:540 TEXTURE:0 SURFACE:0 "
            "SAMPLER:0\n")
    assert parse_cuobjdump_resources(text) == {"_Z2k1Pfi": {"REG": 10, "STACK": 0, "SHARED": 5120, "LOCAL": 0,
                                                            "CONSTANT[0]": 540, "TEXTURE": 0, "SURFACE": 0,
                                                            "SAMPLER": 0}}


@pytest.mark.skipif(toolchain.find("ptxas") is None, reason="no ptxas (triton wheel or CUDA toolkit)")
def test_live_ptxas_on_triton_ptx(tmp_path: Path) -> None:
    shutil.copy(DATA / "softmax_sm90a.ptx", tmp_path / "k.ptx")
    run = toolchain.run_tool([toolchain.ptxas_for("sm_90a"), "-lineinfo", "-v", "--regAllocOptLevel=2",
                              "--gpu-name=sm_90a", "k.ptx", "-o", "k.cubin"], cwd=tmp_path, timeout=120)
    assert run.ok, run.stderr
    (k,) = parse_ptxas(run.stderr).kernels
    assert k.name == "softmax_kernel" and k.arch == "sm_90a"
    assert 8 <= k.registers <= 64 and k.spill_bytes == 0  # 26 with the wheel's ptxas 12.9


@pytest.mark.skipif(toolchain.find("nvcc") is None, reason="nvcc is not installed")
def test_live_nvcc_static_smem_limit(tmp_path: Path) -> None:
    shutil.copy(DATA / "too_big.cu", tmp_path / "k.cu")
    run = toolchain.run_tool([toolchain.find("nvcc"), "-arch=sm_90", "-cubin", "-Xptxas", "-v", "k.cu", "-o",
                              "k.cubin"], cwd=tmp_path, timeout=300)
    r = parse_ptxas(run.stderr + run.stdout)
    assert not run.ok and r.limit_errors[0].used == 400000
    assert r.kernel("_Z2lbPfi") is not None and r.kernel("_Z2lbPfi").spill_stores > 0


def test_amdgcn_figures_from_real_triton_output() -> None:
    from tools.resources.amdgcn import parse_amdgcn
    from tools.resources.assess import assess

    u = parse_amdgcn(_read("triton_softmax_gfx942.amdgcn"), "softmax_kernel", "gfx942")
    assert u is not None and (u.registers, u.spill_bytes) == (17, 0)
    assert u.other["sgprs"] == 26 and u.other["waves_per_simd"] == 8
    a = assess("softmax_kernel", "gfx942", u, threads_per_block=256, dynamic_smem=16)
    assert a.outcome == "pass" and "8 waves per SIMD" in a.summary
    big = assess("softmax_kernel", "gfx942", u, threads_per_block=256, dynamic_smem=70_000)
    assert big.defect == "smem_over_limit"
