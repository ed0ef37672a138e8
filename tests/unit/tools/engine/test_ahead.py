"""The worker thread a tool's compiles start on ahead (tools/engine/ahead.py): answers taken once by key,
in the order submitted; a job that raised or was never started is the caller's to do; close ends it."""

from __future__ import annotations

import threading
import time

from tools.engine.ahead import CompileAhead


def test_jobs_run_in_order_on_one_thread_and_each_answer_is_taken_once() -> None:
    ahead: CompileAhead[tuple[int, str]] = CompileAhead()
    seen: list[int] = []

    def job(i: int):
        def run() -> tuple[int, str]:
            seen.append(i)
            return i, threading.current_thread().name
        return run

    for i in range(4):
        ahead.submit(("k", i), job(i))
    assert ("k", 3) in ahead and ("k", 9) not in ahead
    answers = [ahead.take(("k", i)) for i in (2, 0, 3, 1)]
    assert [a[0] for a in answers if a] == [2, 0, 3, 1]
    assert seen == [0, 1, 2, 3]  # submission order, whatever order they are taken in
    threads = {a[1] for a in answers if a}
    assert len(threads) == 1 and threading.current_thread().name not in threads
    assert ahead.take(("k", 2)) is None  # taken already: the caller does it itself
    ahead.close()
    assert not any(t.name.startswith("kreview-compile-ahead") for t in threading.enumerate())


def test_a_job_that_raises_is_left_to_the_caller() -> None:
    ahead: CompileAhead[int] = CompileAhead()

    def boom() -> int:
        raise RuntimeError("compile child not running")

    ahead.submit("bad", boom)
    ahead.submit("good", lambda: 7)
    assert ahead.take("bad") is None
    assert ahead.take("good") == 7
    assert ahead.take("never submitted") is None
    ahead.close()


def test_close_waits_for_the_running_job_and_drops_the_rest() -> None:
    ahead: CompileAhead[str] = CompileAhead()
    started, ran = threading.Event(), []

    def slow() -> str:
        started.set()
        time.sleep(0.2)
        ran.append("slow")
        return "slow"

    ahead.submit("slow", slow)
    ahead.submit("later", lambda: ran.append("later") or "later")
    assert started.wait(5)
    ahead.close()
    assert ran == ["slow"]  # the running job finished; the queued one never ran
    assert ahead.take("later") is None
    ahead.close()  # twice is fine


def test_cuda_compiles_start_at_the_plan_and_the_nodes_record_their_answers(config, monkeypatch) -> None:
    """``Tool.prepare_static`` for a CUDA submission: lowering's nvcc and the resources tool's compiles
    run on worker threads from the plan; each node records what its thread answered, compiling nothing
    itself. The compilers are stand-ins here (the real nvcc runs in tests/e2e/tools/test_cuda.py)."""
    from pathlib import Path

    from reviewer.device import detect_device
    from reviewer.graph.context import make_tool_context
    from reviewer.graph.nodes import _prepare_static
    from reviewer.ingest import load_submission
    import tools.resources as resources
    from tools.engine.backends.base import Lowered
    from tools.engine.backends.cuda import CudaBackend
    from tools.lowering import _LoweringAhead
    from tools.resources.cuda_static import CudaCompile

    calls: list[tuple[str, str]] = []
    main = threading.current_thread().name

    def lower(self, ctx):
        calls.append(("lower", threading.current_thread().name))
        return [Lowered(kernel="scaled_add", target="sm_90", status="ok", intended=True, message="compiled to PTX")]

    def compile_source(src, target, out, rel, *, timeout, full_timeout):
        calls.append((f"nvcc {target}", threading.current_thread().name))
        return CudaCompile(source=src.label, file=src.file, line=src.line, target=target, error="no nvcc here",
                           error_kind="setup")

    monkeypatch.setattr(CudaBackend, "lower", lower)
    monkeypatch.setattr(resources, "compile_source", compile_source)
    root = Path(__file__).resolve().parents[4] / "examples" / "scaled_add_cuda"
    ctx = make_tool_context(load_submission(root), config, config.runs_dir / "run", 0, detect_device("cpu"))
    try:
        _prepare_static(ctx, ["lowering", "resources"])
        assert ctx.facts.get(_LoweringAhead) is not None
        from tools.lowering import LoweringTool

        LoweringTool().run(ctx)
        resources.ResourcesTool().run(ctx)
    finally:
        ctx.facts.close()
        ctx.session.close()
    # one thread per tool: lowering's and the resources tool's run side by side; each tool's jobs in order
    assert [c for c, _ in calls if c != "lower"] == ["nvcc sm_90", "nvcc sm_80"] and len(calls) == 3
    assert all(thread != main for _, thread in calls)  # none compiled again at its node
    lowered = ctx.prior("lowering")
    assert [e.outcome for e in lowered] == ["pass"] and lowered[0].summary.startswith("scaled_add for sm_90: lowers")
    compiled = ctx.prior("resources")
    assert [e.outcome for e in compiled] == ["unverified", "unverified"]
    assert [e.config["target"] for e in compiled] == ["sm_90", "sm_80"]  # the node's order, not the thread's
