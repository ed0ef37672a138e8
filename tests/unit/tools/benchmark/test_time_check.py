"""The speed-of-light time check records under the tool that measured the time, within what that tool
declares: the benchmark's impossible median is its own integrity item (benchmark-N), never roofline's."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.core.config import ReviewConfig
from reviewer.core.errors import ToolError
from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.conftest import EXAMPLES
from tools.benchmark import BenchmarkTool
from tools.engine.gpus import devices
from tools.engine.speed_of_light import Work, check_time, speed_of_light
from tools.engine.tool import Tool, ToolContext

BOUND = speed_of_light(Work(flops=2 * 1024**3, read_bytes=8 * 2**20, write_bytes=4 * 2**20,
                            input_dtypes=["float32"]), devices()["H100"])


class _PerformanceOnly(Tool):
    name = "performance_only"
    criteria = ("performance",)

    def run(self, ctx: ToolContext) -> None: ...


def _ctx(tmp_path: Path) -> ToolContext:
    return make_tool_context(load_submission(EXAMPLES / "softmax_triton"), ReviewConfig(seed=1), tmp_path / "run", 1,
                             detect_device("cpu"))


def test_an_impossible_median_is_the_benchmarks_own_integrity_fail(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    bench = BenchmarkTool()
    fast = check_time(ctx, bench, seconds=BOUND.cold_floor_s / 10, what="the measured median", bound=BOUND,
                      case=None, rerun="kreview probe x --tool benchmark", cold_cache=True)
    slow = check_time(ctx, bench, seconds=BOUND.cold_floor_s * 10, what="the measured median", bound=BOUND,
                      case=None, rerun="kreview probe x --tool benchmark", cold_cache=True)
    assert (fast.id, fast.tool, fast.outcome, fast.defect) == ("benchmark-1", "benchmark", "fail", "impossible_speed")
    assert fast.criteria == ["integrity", "performance"]
    assert (slow.id, slow.outcome, slow.criteria) == ("benchmark-2", "info", ["integrity"])
    assert "integrity" in BenchmarkTool.criteria


def test_a_tool_that_does_not_declare_integrity_cannot_record_the_time_check(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    with pytest.raises(ToolError, match="does not declare"):
        check_time(ctx, _PerformanceOnly(), seconds=1e-9, what="the claimed time", bound=BOUND, case=None,
                   rerun="r")
    assert ctx.evidence == []
