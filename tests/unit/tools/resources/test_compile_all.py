"""compile_all: the child compiles the jobs one after another, ptxas reads each PTX as soon as it is
written (beside the child's next compile), and the results come back in the jobs' order, failures
included, each what ``compile`` alone gives."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import tools.resources.triton_static as triton_static
from tools.resources.triton_static import CompiledLaunch, PendingPtxas, compile_all, parse_target


class _Child:
    """A stand-in for the compile child: each lowering takes a while; the kernel named ``broken`` fails
    to compile (a final result, no ptxas)."""

    def __init__(self, events: list[tuple[str, str, str, float]]) -> None:
        self.events = events

    def lower(self, entry: dict[str, Any], target, out_dir: Path, run_dir: Path, timeout: float):
        self.events.append(("lower", entry["kernel"], target.label, time.monotonic()))
        time.sleep(0.3)
        base = CompiledLaunch(kernel=entry["kernel"], target=target.label)
        if entry["kernel"] == "broken":
            return base.model_copy(update={"error": "CompilationError: no", "error_kind": "compile"})
        return PendingPtxas(base, out_dir / "k.ptx", target, Path("rel"), timeout)


def test_results_in_order_and_each_ptx_read_beside_the_next_compile(tmp_path: Path, monkeypatch) -> None:
    events: list[tuple[str, str, str, float]] = []
    threads: set[str] = set()

    def ptxas(done: CompiledLaunch, ptx: Path, target, *, rel_dir: Path, timeout: float) -> CompiledLaunch:
        events.append(("ptxas", done.kernel, target.label, time.monotonic()))
        threads.add(threading.current_thread().name)
        time.sleep(0.3)
        return done.model_copy(update={"ok": True, "ptxas_command": f"ptxas {ptx.name} for {target.label}"})

    monkeypatch.setattr(triton_static, "run_ptxas", ptxas)
    sm90, sm80 = parse_target("sm_90"), parse_target("sm_80")
    jobs = [({"kernel": k}, t, tmp_path / k / t.label) for k in ("a", "broken", "b") for t in (sm90, sm80)]
    results = compile_all(_Child(events), jobs, tmp_path, 60.0)  # type: ignore[arg-type]

    assert [(r.kernel, r.target) for r in results] == [(j[0]["kernel"], j[1].label) for j in jobs]
    assert [r.ok for r in results] == [True, True, False, False, True, True]
    assert all(r.error_kind == "compile" for r in results if r.kernel == "broken")
    assert all(r.ptxas_command == f"ptxas k.ptx for {r.target}" for r in results if r.ok)
    # every lowering in the child in the jobs' order, one at a time; no ptxas for a failed compile
    lowered = [(k, t) for kind, k, t, _ in events if kind == "lower"]
    assert lowered == [(j[0]["kernel"], j[1].label) for j in jobs]
    assert sorted((k, t) for kind, k, t, _ in events if kind == "ptxas") == \
        sorted((k, t) for k, t in lowered if k != "broken")
    # the first PTX was read while the child compiled the second job (one after the other: 0.3 s apart)
    when = {(kind, k, t): at for kind, k, t, at in events}
    assert when[("lower", "a", "sm_80")] < when[("ptxas", "a", "sm_90")] + 0.15
    assert threading.current_thread().name not in threads


def test_a_single_job_is_compile(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(triton_static, "run_ptxas",
                        lambda done, ptx, target, *, rel_dir, timeout: done.model_copy(update={"ok": True}))
    events: list[tuple[str, str, str, float]] = []
    job = ({"kernel": "a"}, parse_target("sm_90"), tmp_path / "a")
    (only,) = compile_all(_Child(events), [job], tmp_path, 60.0)  # type: ignore[arg-type]
    assert only.ok and only.kernel == "a" and only.target == "sm_90"
