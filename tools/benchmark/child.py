"""Child side of the GPU benchmark: a sandbox prelude adding the ``benchmark_time`` request.

``install`` runs before any submission code is imported, so it keeps its own references to the
clock, CUDA events, synchronisation and the L2-flush fill: a submission that later patches
``torch.cuda.Event`` or ``torch.cuda.synchronize`` does not change how it is timed. Each repetition:
fresh inputs (a copy of one of several seeded input sets, floating tensors scaled by a factor that
changes every cycle, so neither storage nor content repeats), an L2 flush, a device-wide
synchronize, CUDA events around the call on the current stream, a device-wide synchronize (work left
on other streams is waited for) and host wall time around it all, as a cross-check of the events.
The raw times go back to the parent, which computes the statistics itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import tools.engine.harness.tensors as tensors
import tools.engine.harness.transforms as transforms
from tools.benchmark.stats import StopRule
from tools.engine.harness.case import Case
from tools.engine.harness.kernelbench import dtype_of
from tools.engine.harness.programs import CaseData

OP = "benchmark_time"
_SAVED: dict[str, Any] = {}


def install(config: dict[str, Any]) -> None:
    import torch

    import tools.engine.harness.ops as ops

    _SAVED["perf"] = time.perf_counter
    _SAVED["zero_"] = torch.Tensor.zero_
    if torch.cuda.is_available():
        _SAVED["event"] = torch.cuda.Event
        _SAVED["record"] = torch.cuda.Event.record
        _SAVED["elapsed"] = torch.cuda.Event.elapsed_time
        _SAVED["synchronize"] = torch.cuda.synchronize
        _SAVED["nvtx_push"] = torch.cuda.nvtx.range_push
        _SAVED["nvtx_pop"] = torch.cuda.nvtx.range_pop
    ops.op(OP)(_benchmark)


class CudaClock:
    """Times one call: CUDA events on the current stream, host time around a device-wide sync.

    The L2 flush (``before``) is enqueued between the sync and the start event, with no sync after
    it: while the GPU clears the flush buffer the host launches the call, so the events time the
    kernels and not the host's launch latency (Python, Triton's launcher) spent with the GPU idle,
    as ``triton.testing.do_bench`` does. The host time is the wall time less the flush's GPU time."""

    def __init__(self, nvtx: bool = False) -> None:
        self.nvtx = nvtx

    def measure(self, fn: Callable[[], Any], before: Callable[[], Any] | None = None) -> tuple[float, float]:
        event, record, elapsed, sync, perf = (_SAVED[k] for k in ("event", "record", "elapsed", "synchronize", "perf"))
        flushed, start, end = event(enable_timing=True), event(enable_timing=True), event(enable_timing=True)
        sync()
        t0 = perf()
        record(flushed)
        if before is not None:
            before()
        if self.nvtx:
            _SAVED["nvtx_push"]("kreview_timed")
        record(start)
        fn()
        record(end)
        if self.nvtx:
            _SAVED["nvtx_pop"]()
        sync()
        t1 = perf()
        return elapsed(start, end) / 1e3, t1 - t0 - elapsed(flushed, start) / 1e3


@dataclass
class LoopResult:
    event_s: list[float]
    host_s: list[float]
    stop: str
    warmup_reps: int
    seconds: float


def time_loop(call: Callable[[Any], Any], make_inputs: Callable[[int], Any], flush: Callable[[], Any],
              clock: Any, stop: Any, *, warmup_s: float, min_warmup: int = 3,
              perf: Callable[[], float] = time.perf_counter) -> LoopResult:
    """Warm up, then repeat until ``stop.check`` says so. Inputs are made and L2 is flushed outside
    the measured region; ``stop.check`` sees the event times and the wall time since measuring began."""
    t0 = perf()
    warm = 0
    while warm < min_warmup or perf() - t0 < warmup_s:
        inputs = make_inputs(warm)
        clock.measure(lambda inputs=inputs: call(inputs))
        warm += 1
        if warm >= 10_000:
            break
    events: list[float] = []
    host: list[float] = []
    why = None
    rep = warm
    started = perf()
    while why is None:
        inputs = make_inputs(rep)
        e, h = clock.measure(lambda inputs=inputs: call(inputs), flush)
        events.append(e)
        host.append(h)
        rep += 1
        why = stop.check(events, perf() - started)
    return LoopResult(event_s=events, host_s=host, stop=why, warmup_reps=warm, seconds=perf() - t0)


def fresh_inputs(sets: list[Any], rep: int) -> Any:
    """A new copy of input set ``rep % len(sets)``; floating tensors scaled by 1 + k/1024, k the cycle."""
    import torch
    from torch.utils._pytree import tree_map

    base = sets[rep % len(sets)]
    scale = 1.0 + ((rep // len(sets)) % 64 + 1) / 1024

    def copy(t: Any) -> Any:
        if not isinstance(t, torch.Tensor):
            return t
        out = torch.empty_like(t).copy_(t)
        if out.is_floating_point():
            out.mul_(scale)
        return out

    return tree_map(copy, base)


def timed_callable(program: Any, case: Any, data: Any, device: str, mode: str) -> tuple[Callable[[Any], Any], str]:
    """``f(inputs)`` doing only the work being timed (model construction happens once, here)."""
    import torch

    if hasattr(program, "cls") or hasattr(program, "module_for"):
        cls = program.cls if hasattr(program, "cls") else program.module_for(case.params).Model
        torch.manual_seed(case.seed)
        model = cls(*data.init)
        if isinstance(model, torch.nn.Module):
            dt = dtype_of(case.dtype)
            model = (model.to(dt) if dt is not None else model).to(device).eval()
        fn: Callable[..., Any] = torch.compile(model) if mode == "compile" else model

        def call(inputs: Any) -> Any:
            with torch.no_grad():
                return fn(*inputs)

        return call, "module constructed once; forward timed"
    target = getattr(program, "fn", None)
    if target is None and hasattr(program, "module"):
        target = getattr(program.module, "ref_kernel", None)
    if target is not None:
        fn = torch.compile(target) if mode == "compile" else target
        single = type(program).__name__.startswith("GpuMode")
        return (lambda inputs: fn(inputs[0])) if single else (lambda inputs: fn(*inputs)), "function call timed"

    def run(inputs: Any) -> Any:
        return program.run(case, type(data)(init=data.init, inputs=inputs))

    return run, "the program's run() timed (may include setup)"


def _benchmark(payload: dict[str, Any], state: Any) -> dict[str, Any]:
    import torch

    if "event" not in _SAVED:
        raise RuntimeError("no CUDA device in this child")
    program = state.reference if payload["role"] == "reference" else state.submission
    if program is None:
        raise RuntimeError(f"{payload['role']} not loaded")
    case = Case.model_validate(payload["case"])
    device = "cuda"
    sets = []
    first = None
    for path in payload["inputs_paths"]:
        saved = tensors.load(path)
        inputs = transforms.apply(tensors.move(saved["inputs"], device), case.transforms)
        sets.append(inputs)
        first = first or CaseData(init=saved["init"], inputs=inputs)
    assert first is not None
    call, note = timed_callable(program, case, first, device, payload.get("mode", "eager"))
    # Rationale: twice the L2 evicts it; at least 256 MiB (do_bench's size) keeps the GPU busy long
    # enough (~80 us on an H200) for the host to launch the timed call behind it
    flush_bytes = int(payload.get("flush_bytes") or max(2 * torch.cuda.get_device_properties(0).L2_cache_size,
                                                        256 * 2**20))
    flush_buf = torch.empty(max(flush_bytes // 4, 1), dtype=torch.int32, device=device)
    zero = _SAVED["zero_"]
    loop = time_loop(call, lambda rep: fresh_inputs(sets, rep), lambda: zero(flush_buf),
                     CudaClock(nvtx=bool(payload.get("nvtx"))), StopRule.model_validate(payload.get("stop", {})),
                     warmup_s=float(payload.get("warmup_s", 0.1)), perf=_SAVED["perf"])
    return {"event_s": loop.event_s, "host_s": loop.host_s, "stop": loop.stop, "warmup_reps": loop.warmup_reps,
            "loop_seconds": loop.seconds, "note": note, "flush_bytes": flush_bytes, "input_sets": len(sets),
            "device": torch.cuda.get_device_name(0), "mode": payload.get("mode", "eager")}
