"""resources' compiles started ahead (``ResourcesTool.ahead``) never outlive the tool: where no launch was
captured none start (the tool compiles nothing then either), a run that raises before taking them stops
them, and the review's close stops them where the tool never ran. The capture and the compile child are
stand-ins here; tests/e2e/tools/test_resources_ahead.py compares the real items of both paths."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from reviewer.core.config import ReviewConfig
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.kernelfiles import KERNELS, materialize
from tools.engine.facts import AutotuneLaunches
from tools.engine.review_plan import ReviewPlan
from tools.engine.runsetup import DeviceInfo
import tools.resources as resources
from tools.resources.triton_static import CompiledLaunch

LAUNCH = {"kernel": "matmul_kernel", "qualname": "matmul_kernel", "constexprs": {"BLOCK": 64},
          "options": {"num_warps": 4}, "count": 1}


class _Worker:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def interrupt(self) -> None:
        self.log.append("interrupt")


class _Compiler:
    """A compile child that takes 0.3 s a compile and records what it was asked, from which thread."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.worker = _Worker(self.log)

    def compile(self, entry: dict[str, Any], target: Any, out: Path, run_dir: Path, timeout: float) -> CompiledLaunch:
        time.sleep(0.3)
        self.log.append(f"compile {target.label} in {threading.current_thread().name}")
        return CompiledLaunch(kernel=entry["kernel"], target=target.label, error="stand-in", error_kind="compile")

    def close(self) -> None:
        self.log.append("close")


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    sub = materialize(KERNELS / "resources_matmul" / "smem_over_limit.py", tmp_path / "sub")
    c = make_tool_context(load_submission(sub), ReviewConfig(runs_dir=tmp_path / "runs", seed=1, signoff=False),
                          tmp_path / "run", 7, DeviceInfo(kind="cpu", name="cpu"))
    c.plan = ReviewPlan(tools=["builds", "autotune", "correctness", "resources"])
    c.facts.put(AutotuneLaunches((LAUNCH,)))
    yield c
    c.stop_background()
    c.session.close()


def _stand_ins(monkeypatch: pytest.MonkeyPatch, launches: list[dict[str, Any]]) -> _Compiler:
    compiler = _Compiler()
    monkeypatch.setattr(resources.ResourcesTool, "_launches", lambda self, ctx, case: ({"launches": launches}, ""))
    monkeypatch.setattr(resources.ResourcesTool, "_take_compiler", lambda self, ctx: compiler)
    return compiler


def _alive() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("kreview-resources")]


def test_no_launch_captured_starts_no_compile(ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    compiler = _stand_ins(monkeypatch, [])
    tool = resources.ResourcesTool()
    tool.ahead(ctx)  # the autotune tool left a config, but the capture saw no launch
    assert not ctx.background and not _alive()
    tool.run(ctx)
    assert [(e.outcome, e.defect) for e in ctx.evidence] == [("unverified", "no_kernel_launched")]
    assert compiler.log == []  # as when the tool compiles as it runs: nothing


def test_compiles_started_ahead_run_in_their_thread_and_are_taken(ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    compiler = _stand_ins(monkeypatch, [LAUNCH])
    tool = resources.ResourcesTool()
    tool.ahead(ctx)
    assert _alive() == ["kreview-resources-compiles"]
    tool.run(ctx)
    assert compiler.log == ["compile sm_90 in kreview-resources-compiles", "compile sm_80 in kreview-resources-compiles",
                            "close"]
    assert [e.defect for e in ctx.evidence] == ["compile_error", "compile_error"] and not _alive()


def test_a_run_that_raises_before_taking_them_stops_them(ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    compiler = _stand_ins(monkeypatch, [LAUNCH])
    tool = resources.ResourcesTool()
    tool.ahead(ctx)

    def broken(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("a bug before the result is taken")

    monkeypatch.setattr(ctx, "rerun", broken)
    with pytest.raises(RuntimeError):
        tool.run(ctx)
    # stopped before run returned: the compile in flight ended, no other started, the compiler closed
    assert compiler.log == ["interrupt", "compile sm_90 in kreview-resources-compiles", "close"]
    assert not _alive()


def test_the_reviews_close_stops_compiles_no_tool_took(ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    compiler = _stand_ins(monkeypatch, [LAUNCH])
    resources.ResourcesTool().ahead(ctx)  # then the review is interrupted before resources runs
    ctx.stop_background()
    assert compiler.log[-1] == "close" and "compile sm_80 in kreview-resources-compiles" not in compiler.log
    assert not _alive()
