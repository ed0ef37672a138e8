"""Roofline numbers checked by hand and the work counter on real torch ops (claimed times held to the
speed-of-light floor end to end: the roofline corpus of tests/e2e/test_kernel_verdicts.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
import torch

from tools.engine.counting import count_work
from tools.engine.gpus import devices, find_device
from tools.engine.speed_of_light import Work, speed_of_light

H100 = devices()["H100"]


def test_device_table_has_sources_and_known_figures() -> None:
    assert set(devices()) >= {"H100", "H200", "A100", "L4", "B200"}
    for d in devices().values():
        assert d.sources and all(s.startswith("https://") for s in d.sources)
        assert d.peak("fp32") and d.hbm_gbps > 0
    assert H100.peak("bf16") == pytest.approx(989.4e12) and H100.bandwidth == 3.35e12
    assert find_device("NVIDIA H100 80GB HBM3") is H100 and find_device("nvidia h200").key == "H200"
    assert find_device("RTX 4090") is None


def test_matmul_by_hand() -> None:
    n = 1024
    w = Work(flops=2 * n**3, read_bytes=2 * n * n * 4, write_bytes=n * n * 4, input_dtypes=["float32"])
    b = speed_of_light(w, H100)
    # 2 * 1024^3 = 2,147,483,648 FLOP at 989.4e12 FLOP/s = 2.1705 us; 12.6 MB fit in 2 x 50 MB of L2
    assert b.compute_floor_s == pytest.approx(2_147_483_648 / 989.4e12)
    assert not b.memory_floor_applies and b.floor_s == pytest.approx(2.1705e-6, rel=1e-4)
    # cold L2: the 8,388,608 input bytes must come from HBM at 3.35e12 B/s = 2.504 us > 2.17 us
    assert b.cold_floor_s == pytest.approx(8_388_608 / 3.35e12)
    # fp32 roofline at 67 TFLOP/s: 32.05 us, compute-bound (memory 12,582,912 / 3.35e12 = 3.76 us)
    assert b.roofline_s == pytest.approx(2_147_483_648 / 67e12) and b.bound_by == "compute"
    assert b.arithmetic_intensity == pytest.approx(2_147_483_648 / 12_582_912)


def test_elementwise_by_hand() -> None:
    n = 1 << 26
    w = Work(flops=0, read_bytes=2 * n * 4, write_bytes=n * 4, input_dtypes=["float32"])
    b = speed_of_light(w, H100)
    # 805,306,368 bytes > 2 x L2: a hard HBM floor of 805306368 / 3.35e12 = 240.39 us
    assert b.memory_floor_applies and b.floor_s == pytest.approx(805_306_368 / 3.35e12)
    assert b.floor_s == pytest.approx(240.39e-6, rel=1e-4) and b.bound_by == "memory"
    h200 = speed_of_light(w, devices()["H200"])
    assert h200.floor_s == pytest.approx(805_306_368 / 4.8e12)
    small = speed_of_light(Work(flops=0, read_bytes=4096, write_bytes=4096, input_dtypes=["float32"]), H100)
    assert small.floor_s == 0.0 and small.cold_floor_s == pytest.approx(4096 / 3.35e12)


def test_count_work_matmul_and_elementwise() -> None:
    a, b = torch.randn(64, 32), torch.randn(32, 16)
    with count_work([a, b]) as w:
        out = a @ b
    r = w.finish(out)
    assert r["flops"] == 2 * 64 * 32 * 16
    assert (r["read_bytes"], r["write_bytes"]) == ((64 * 32 + 32 * 16) * 4, 64 * 16 * 4)
    x, y = torch.randn(1000), torch.randn(1000)
    with count_work([x, y]) as w:
        out = torch.relu(x + y)
    r = w.finish(out)
    assert r["flops"] == 0 and (r["read_bytes"], r["write_bytes"]) == (8000, 4000)


def test_count_work_module_parameters_and_out_buffers() -> None:
    lin = torch.nn.Linear(32, 8)
    x = torch.randn(4, 32)
    with count_work([x]) as w:
        out = lin(x)
    r = w.finish(out)
    assert r["flops"] == 2 * 4 * 32 * 8
    assert r["read_bytes"] == (4 * 32 + 8 * 32 + 8) * 4  # input, weight, bias
    a, b, c = torch.randn(100), torch.randn(100), torch.empty(100)
    with count_work([a, b, c]) as w:
        torch.add(a, b, out=c)
    r = w.finish(c)
    assert r["read_bytes"] == 800 and r["write_bytes"] == 400  # the out= buffer is not read


def test_counting_loads_no_dynamo_until_something_does() -> None:
    """The roofline's count imports torch._dynamo (1.1 s) only where something else loaded it (a fresh
    process, as a reference child is); the counts are the same either way, and once dynamo is loaded the
    flop counter's mode takes torch's dynamo.disable form."""
    code = textwrap.dedent("""
        import json, sys, torch
        from tools.engine.counting import count_work
        def count():
            a, b = torch.randn(64, 100), torch.randn(100, 32)
            with count_work([a, b]) as w:
                out = torch.softmax(a @ b, -1)
            r = w.finish(out)
            return [r["flops"], r["read_bytes"], r["write_bytes"]]
        first = count()
        loaded = "torch._dynamo" in sys.modules
        import torch._dynamo
        from torch.utils.flop_counter import _FlopCounterMode
        second = count()
        form = _FlopCounterMode.__torch_dispatch__.__wrapped__.__dynamo_disable.__qualname__
        print(json.dumps([first, loaded, second, form]))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    first, loaded, second, form = json.loads(done.stdout.strip().splitlines()[-1])
    assert not loaded
    assert first == second == [2 * 64 * 100 * 32, (64 * 100 + 100 * 32) * 4, 64 * 32 * 4]
    assert "until_dynamo_loads" not in form  # the disabled form torch builds
