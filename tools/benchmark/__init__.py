"""benchmark: time the submission and the reference on a CUDA device, the same way, and judge the
speedup (or the claimed time) with a confidence interval.

Without a CUDA device the performance criterion is ``unverified`` ("no CUDA device"), and the
evidence carries the roofline floor. On a GPU: several seeded input sets made by the reference child,
dedicated benchmark children (prelude tools/benchmark/child.py) for the submission and the reference
(eager, and torch.compile where it works), statistics recomputed here from the raw times, the
measured median checked against the speed-of-light floor (roofline), ncu when installed.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path
from typing import Any

from tools.engine.results import BenchmarkResult
from tools.engine.tool import Tool, ToolContext, failure_details
import tools.benchmark.ncu as ncu
import tools.benchmark.stats as stats
from tools.benchmark.verdicts import judge_timings
from tools.engine.cases import nominal_cases
from tools.engine.facts import NominalChecks
from tools.engine.formats import format_of
from tools.engine.harness.case import Case
from tools.engine.speed_of_light import RooflineFact, bound_here, check_time, claim_bound, targets_bound
import tools.engine.sandbox.gpu as gpu
import tools.engine.sandbox.safe_files as safe_files
from tools.engine.sandbox import SandboxWorker

INPUT_SETS = 4
PERFORMANCE = ["performance"]
STOP = stats.StopRule(rel_sem=stats.REL_SEM_TARGET, min_reps=20, min_time_s=0.2, max_reps=5000, max_time_s=10.0)


class BenchmarkTool(Tool):
    name = "benchmark"
    result_model = BenchmarkResult
    criteria = ("performance", "integrity")
    """Integrity: a measured median (or the time a claimed speedup implies) below the speed-of-light
    floor is an impossible speed (``check_time``); every other item bears on performance only."""
    after = ("correctness", "roofline")
    description = "GPU timing of submission vs reference (CUDA events, L2 flush, adaptive stopping)"

    def run(self, ctx: ToolContext) -> None:
        self.rerun_case(ctx, nominal_cases(ctx, 1, "benchmark")[0])

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        rerun = ctx.rerun(self.name, case)
        roof = ctx.facts.get(RooflineFact)
        floor_info = ({k: b.describe() for k, b in roof.bounds.items()} if roof else None)
        if not ctx.device.has_gpu:
            floor = ""
            if roof:
                b = claim_bound(roof.bounds, ctx.submission.target.gpu)
                # with no target GPU the floor is the lowest of the table's: say so, or it reads as the target
                on = b.device if targets_bound(roof.bounds, ctx.submission.target.gpu) else \
                    f"{b.device} (the lowest of the GPUs known; [target] gpu names yours)"
                floor = (f"; speed-of-light floor on {on} with a flushed L2: {b.cold_floor_s * 1e6:.3g} us"
                         + (f", roofline at {b.native_format}: {b.roofline_s * 1e6:.3g} us" if b.roofline_s else ""))
            claims = ctx.submission.claims
            claimed = (f"; claimed {claims.speedup}x over {claims.baseline}" if claims.speedup else "") + \
                      (f"; claimed {claims.time_us} us" if claims.time_us else "")
            ctx.add_evidence(self, criteria=PERFORMANCE, outcome="unverified", defect="no_gpu",
                             summary=f"not measured: no CUDA device{floor}{claimed}", reason="no CUDA device",
                             check="CUDA-event timing vs the reference", config=ctx.environment(),
                             result={"roofline": floor_info, "claims": claims.model_dump()}, rerun=rerun)
            return
        nominal = ctx.facts.get(NominalChecks)
        if nominal is not None and nominal.failed:
            return  # the rubric reports performance as not assessed when correctness failed
        self._measure(ctx, case, rerun, roof)

    # -- GPU ---------------------------------------------------------------------------------
    def _worker(self, ctx: ToolContext, role: str, python: str | None = None, tag: str = "",
                writable: list[Path] | None = None) -> SandboxWorker:
        from tools.engine.session import _copy_tree  # the same copy rules as the run children

        workdir = ctx.session.root / f"bench-{role}{tag}"
        _copy_tree(ctx.submission.root_path, workdir / "src")
        return SandboxWorker(f"bench-{role}{tag}", workdir, ctx.options.limits, env_extra=dict(ctx.setup.env),
                             preludes=[*ctx.setup.preludes, "tools.benchmark.child"],
                             child_config=ctx.session.child_config(), python=python,
                             gpu=gpu.for_device(ctx.device), writable=[ctx.session.xfer_for(role), *(writable or [])])

    def _time(self, ctx: ToolContext, worker: SandboxWorker, role: str, case: Case, paths: list[str],
              mode: str, stop: stats.StopRule, nvtx: bool = False) -> tuple[dict[str, Any] | None, str]:
        request = format_of(ctx.submission).load_request(ctx.submission, role, worker.workdir / "src")
        load = worker.call("load", request, timeout=ctx.options.limits.startup_timeout_s)
        # each role reads its inputs from its own transfer folder (tools/engine/session.py)
        paths = [str(ctx.session.for_role(Path(p), role)) for p in paths]
        if not (load.answered and load.ok):
            return None, f"{role} did not load: {load.failure_text()[:300]}"
        timeout = max(ctx.options.limits.call_timeout_s, stop.max_time_s * 3 + 300)
        res = worker.call("benchmark_time", {"role": role, "case": case.model_dump(), "inputs_paths": paths,
                                             "mode": mode, "stop": stop.model_dump(), "nvtx": nvtx}, timeout=timeout)
        if not (res.answered and res.ok):
            return None, f"{role} ({mode}) timing failed: {res.failure_text()[:400]}"
        out = res.result
        events = [float(x) for x in out.get("event_s", [])]
        # Rationale: the child is untrusted; its repetitions cannot add up to more than the call took.
        if not events or sum(events) > res.duration_s:
            return None, (f"{role} ({mode}) returned implausible timings ({len(events)} samples, "
                          f"{sum(events):.3g}s in a {res.duration_s:.3g}s call)")
        return out, ""

    def _measure(self, ctx: ToolContext, case: Case, rerun: str, roof: RooflineFact | None) -> None:
        cases = [case.model_copy(update={"seed": s, "id": f"{case.id}-b{i}"})
                 for i, s in enumerate(ctx.seeds(INPUT_SETS, "benchmark-inputs"))]
        refs = [ctx.session.reference(c) for c in cases]
        if not all(r.ok for r in refs):
            bad = next(r for r in refs if not r.ok)
            ctx.add_evidence(self, criteria=PERFORMANCE, outcome="unverified", defect="reference_failed",
                             reason="reference failed",
                             summary=f"not measured: the reference failed: {bad.call.failure_text()[:300]}",
                             result=failure_details(bad.call), rerun=rerun)
            return
        paths = [str(r.inputs_path) for r in refs]
        env = {**ctx.environment(), "stop_rule": STOP.model_dump(), "input_sets": INPUT_SETS,
               "method": "CUDA events per call; L2 flushed (2 x L2 size, at least 256 MiB) between the synchronize and the start "
                         "event, so the host launches behind it; fresh input copies "
                         "per repetition; device-wide synchronize before and after; host wall time cross-check"}
        timings: dict[str, dict[str, Any]] = {}
        notes: dict[str, str] = {}
        for role, mode in (("submission", "eager"), ("reference", "eager"), ("reference", "compile")):
            worker = self._worker(ctx, role, tag=f"-{mode}")
            try:
                out, why = self._time(ctx, worker, role, case, paths, mode, STOP)
            finally:
                worker.close()
            if out is None:
                notes[f"{role}/{mode}"] = why
                continue
            timings[f"{role}/{mode}"] = out
        sub = timings.get("submission/eager")
        if sub is None or "reference/eager" not in timings:
            ctx.add_evidence(self, criteria=PERFORMANCE, outcome="unverified", defect="benchmark_failed",
                             summary=f"not measured: {'; '.join(notes.values())[:500]}", reason="timing failed",
                             config=env, result={"notes": notes}, rerun=rerun)
            return
        summaries = {k: stats.summarize(v["event_s"]) for k, v in timings.items()}
        host_excess = statistics.median(h - e for h, e in zip(sub["host_s"], sub["event_s"]))
        s = summaries["submission/eager"]
        result: dict[str, Any] = {"summaries": {k: v.model_dump() for k, v in summaries.items()},
                                  "stop": {k: v["stop"] for k, v in timings.items()},
                                  "host_minus_event_median_s": host_excess, "notes": notes,
                                  "raw": {k: v["event_s"] for k, v in timings.items()}, "roofline": None}
        ctx.add_evidence(self, criteria=PERFORMANCE, outcome="info",
                         summary=f"submission median {s.median * 1e6:.4g} us (IQR {s.iqr * 1e6:.3g} us, CV {s.cv:.2%}, "
                                 f"{s.n} reps, stop: {sub['stop']}); reference eager "
                                 f"{summaries['reference/eager'].median * 1e6:.4g} us"
                                 + (f", torch.compile {summaries['reference/compile'].median * 1e6:.4g} us"
                                    if "reference/compile" in summaries else "")
                                 + f" on {sub.get('device')}",
                         check="benchmark statistics", config=env, result=result, rerun=rerun)
        self._judge(ctx, case, rerun, env, timings, summaries, roof)
        self._ncu(ctx, case, paths, rerun, env)

    def _judge(self, ctx: ToolContext, case: Case, rerun: str, env: dict[str, Any],
               timings: dict[str, dict[str, Any]], summaries: dict[str, stats.Summary],
               roof: RooflineFact | None) -> None:
        claims = ctx.submission.claims
        seed = ctx.seeds(1, "benchmark-bootstrap")[0]
        for j in judge_timings(timings, claims, seed=seed):
            ev = ctx.add_evidence(self, criteria=PERFORMANCE, outcome=j.outcome, defect=j.defect, summary=j.summary,
                                  check=j.check,
                                  config=env, result=j.result, rerun=rerun)
            if j.defect:  # a concern: shown in the draft, never a fail (tools/benchmark/verdicts.py)
                ctx.add_finding(origin="tool", category=j.defect, severity="warning", message=j.summary,
                                confirmed_by=[ev.id])
        median = summaries["submission/eager"].median
        base = "reference/compile" if claims.baseline == "compile" and "reference/compile" in timings else "reference/eager"
        if roof:
            bound = bound_here(roof, ctx.device.name)
            check_time(ctx, self, seconds=median, what="the measured median", bound=bound, case=case, rerun=rerun,
                       cold_cache=True)
            if claims.speedup is not None:
                ref_median = summaries[base].median
                best = ref_median / bound.cold_floor_s if bound.cold_floor_s else None
                if best is not None and claims.speedup > best:
                    check_time(ctx, self, seconds=ref_median / claims.speedup, what="the time implied by the claimed "
                               f"{claims.speedup:.3g}x speedup", bound=bound, case=case, rerun=rerun, cold_cache=True)

    def _ncu(self, ctx: ToolContext, case: Case, paths: list[str], rerun: str, env: dict[str, Any]) -> None:
        tool = ncu.find_ncu()
        if tool is None:
            ctx.add_evidence(self, criteria=PERFORMANCE, outcome="info",
                             summary="ncu not installed: no hardware counters",
                             check="Nsight Compute", rerun=rerun)
            return
        # Rationale: ncu runs inside the child's sandbox and writes its report where the child can
        # write: a scratch folder of the session, never the run's artifacts; the parent reads the
        # report without following links or blocking on a FIFO, and keeps its own copy
        scratch = ctx.session.root / "bench-ncu-out"
        safe_files.remove_tree(scratch)  # emptied: nothing an earlier child left is written through
        script = ncu.wrapper(tool, sys.executable, scratch / "ncu.csv", scratch)
        worker = self._worker(ctx, "submission", python=str(script), tag="-ncu", writable=[scratch])
        few = stats.StopRule(min_reps=5, max_reps=5, min_time_s=0.0, max_time_s=60.0)
        try:
            out, why = self._time(ctx, worker, "submission", case, paths[:1], "eager", few, nvtx=True)
        finally:
            worker.close()
        log = ctx.artifact_dir(self.name) / "ncu.csv"
        try:
            log.write_bytes(safe_files.read_bytes(scratch / "ncu.csv", anchor=ctx.session.root, cap=64 * 2**20))
        except OSError:
            pass
        metrics = ncu.parse_csv(log.read_text(errors="replace")) if log.exists() else {}
        if not metrics:
            # supplementary counters: their absence does not leave the timing unverified
            ctx.add_evidence(self, criteria=PERFORMANCE, outcome="info", defect="ncu_failed",
                             reason=why or "no ncu metrics",
                             summary=f"ncu gave no metrics: {why or 'empty report'}", check="Nsight Compute",
                             rerun=rerun, artifacts=[str(log.relative_to(ctx.run_dir))] if log.exists() else [])
            return
        total = sum(m.get("duration", 0.0) for m in metrics.values())
        ctx.add_evidence(self, criteria=PERFORMANCE, outcome="info",
                         summary=f"ncu: {len(metrics)} kernel(s) in the timed region, {total * 1e6:.4g} us in total; "
                                 + "; ".join(f"{k[:40]}: DRAM {m.get('dram_throughput_pct', 0):.0f}% of peak, "
                                             f"achieved occupancy {m.get('achieved_occupancy_pct', 0):.0f}%"
                                             for k, m in list(metrics.items())[:3]),
                         check="ncu --nvtx-include kreview_timed/", config=env,
                         result={"kernels": metrics, "event_s": (out or {}).get("event_s")},
                         artifacts=[str(Path(log).relative_to(ctx.run_dir))], rerun=rerun)
