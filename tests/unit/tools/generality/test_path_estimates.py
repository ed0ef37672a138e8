"""Planning the sizes of a size-dependent wrapper path (issue 33, class 3): programs are estimated from the
nominal launches' block size, not linearly from a tiny nominal; a 1-D input gets no square-root sizes."""

from __future__ import annotations

from typing import Any, cast

from tools.engine.harness.case import Case
from tools.engine.nominal_run import NominalRun
from tools.generality.paths import Threshold, crossing_values, multi_dimensional, path_sizes

SOURCE = """
BIG = 1 << 20

def custom_kernel(x):
    if x.numel() >= BIG:
        return 1
    return 2
"""


def _base(elements: int, programs: int, block: int) -> NominalRun:
    launch = {"kernel": "partial_sums", "grid": [programs], "constexprs": {"BLOCK": block}}
    return NominalRun(case=Case(id="n", seed=0), evaluation=cast(Any, None), elements=elements, seconds=0.1,
                      launches=[launch], programs=programs)


def test_programs_grow_from_the_block_size_not_from_a_tiny_nominal() -> None:
    tiny = _base(elements=1, programs=1, block=8192)
    # 2^20 elements in 8,192-element programs: 128 programs, not 2^20
    assert tiny.units(1 << 20, [float(1 << 20)]) < 3000
    full = _base(elements=8192 * 4, programs=4, block=8192)  # full programs: linear as before
    assert full.units(8192 * 8) == full.units(8192 * 8, [2.0]) > 300 + 2 * 8 - 1


def test_one_dimensional_inputs_get_no_square_root_sizes() -> None:
    t = Threshold(1 << 20, 5, "x.numel() >= BIG")
    assert crossing_values(t, square=False) == [1 << 20, (1 << 20) + 1]
    assert 1024 in crossing_values(t)
    assert not multi_dimensional([{"shape": [4097]}]) and multi_dimensional([{"shape": [64, 64]}])
    assert [v for v, _ in path_sizes(SOURCE, 1, [4097, 1 << 21], square=False)] == [1 << 20, (1 << 20) + 1]
