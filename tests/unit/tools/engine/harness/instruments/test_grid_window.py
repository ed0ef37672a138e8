"""The virtual device's CUDA grid limits (tools/engine/harness/virtual_gpu.py) and the ``grid_window``
instrument (tools/engine/harness/instruments/grid_window.py), which runs only the head and tail
programs of a grid past 65,536 and records each one's stores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import ROOT
from tools.engine.harness.instruments.grid_window import in_window
from tools.engine.harness.virtual_gpu import GRID_LIMITS, GridLimitError, check_grid, launch_grid


def test_grid_limits_are_cudas_and_a_refused_dimension_is_named() -> None:
    assert GRID_LIMITS == (2**31 - 1, 65535, 65535)
    check_grid("k", (2**31 - 1, 65535, 65535))
    with pytest.raises(GridLimitError, match=r"grid dimension y = 65,536 .*limit of 65,535"):
        check_grid("k", (1, 65536, 1))
    with pytest.raises(GridLimitError, match=r"dimension z"):
        check_grid("k", (1, 1, 70000))


def test_launch_grid_evaluates_callables_on_the_launch_arguments() -> None:
    def kernel(x, n, BLOCK):
        return None

    assert launch_grid(kernel, (None, 1000), lambda meta: (meta["n"] // meta["BLOCK"],), {"BLOCK": 10}) == (100, 1, 1)
    assert launch_grid(kernel, (None, 5), (1, 5), {"BLOCK": 1}) == (1, 5, 1)
    assert launch_grid(kernel, (None, 5), lambda meta: 1 / 0, {}) is None


def test_window_runs_heads_and_tails_of_the_large_dimension_only() -> None:
    dims = (65538, 2, 1)
    ran = [x for x in range(dims[0]) if in_window((x, 0, 0), dims, 65536, 2)]
    assert ran == [0, 1, 65536, 65537]
    assert not in_window((0, 1, 0), dims, 65536, 2)
    assert in_window((5, 1, 0), (100, 2, 1), 65536, 2)  # a small grid runs whole


_SCRIPT = textwrap.dedent('''
    import json, torch, triton, triton.language as tl
    from tools.engine.harness.instruments import get

    @triton.jit
    def good(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        tl.store(y_ptr + row * n + offs, tl.load(x_ptr + row * n + offs, mask=offs < n) * 2, mask=offs < n)

    @triton.jit
    def wraps(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        row = tl.program_id(0) % 65536
        offs = tl.arange(0, BLOCK)
        tl.store(y_ptr + row * n + offs, tl.load(x_ptr + row * n + offs, mask=offs < n) * 2, mask=offs < n)

    x = torch.randn(65537, 4)
    out = {}
    y = torch.zeros_like(x)
    with get("grid_window")({}) as data:
        good[(1000,)](x, y, 4, BLOCK=4)
    out["small"] = data
    out["small_untouched"] = bool((y == 0).all())
    for k in (good, wraps):
        y = torch.zeros_like(x)
        with get("grid_window")({}) as data:
            k[(65537,)](x, y, 4, BLOCK=4)
        out[k.fn.__name__] = data
    print(json.dumps(out))
''')


def test_windowed_launch_records_footprints_and_a_wrapped_index_repeats_program_0() -> None:
    from tools.generality.large_grid import judge_window

    env = {**os.environ, "TRITON_INTERPRET": "1"}
    done = subprocess.run([sys.executable, "-c", _SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout.strip().splitlines()[-1])
    good = data["good"]["launches"][0]
    assert good["grid"] == [65537, 1, 1] and good["ran"] == 4 and good["skipped"] == 65533
    assert [p["pid"][0] for p in good["programs"]] == [0, 1, 65535, 65536]
    assert all(p["stores"] == 4 for p in good["programs"])
    assert judge_window(data["good"]).outcome == "pass"
    small = data["small"]["launches"][0]
    assert small["grid"] == [1000, 1, 1] and small["ran"] == 0 and small["skipped"] == 1000
    assert data["small_untouched"] and judge_window(data["small"]).outcome == "not_crossed"
    verdict = judge_window(data["wraps"])
    assert verdict.outcome == "fail" and verdict.defect == "program_id_wrap"
    assert verdict.result["tail"]["pid"][0] == 65536 and verdict.result["twin"]["pid"][0] == 0
