"""sanitizers: run a nominal case under each of the backend's check modes and compare.

A check mode is a way of running the submission that sees more than the plain run: Pallas's
``interpret=True`` and TPU interpreter (races, out-of-bounds reads, shuffled grid orders on two
cores), compute-sanitizer's memcheck/racecheck/initcheck/synccheck for CUDA on a GPU. Per mode and
case, one evidence item: fail on a reported defect (race, invalid access) or on outputs that differ
from the reference; unverified when the mode cannot run here (with the reason); pass otherwise.
Criterion: ``correctness`` (a race or an invalid access is wrong even when this run's numbers match).
"""

from __future__ import annotations

from tools.engine.registry import backend_for
from tools.engine.backends.base import CheckMode, ModeRun
from tools.engine.tool import Tool, ToolContext, failure_details, user_frame_line
from tools.engine.cases import nominal_cases
from tools.engine.evaluate import judge_outputs
from tools.engine.harness.case import Case
from tools.engine.outcomes import classify_failure, input_elements


class SanitizersTool(Tool):
    name = "sanitizers"
    criteria = ("correctness",)
    after = ("builds", "correctness")
    description = "the nominal case under each sanitizer / interpreter mode of the framework"

    def applies(self, ctx: ToolContext) -> str | None:
        backend = backend_for(ctx.submission.framework)
        if not backend.supports_sanitizer or not backend.check_modes(ctx):
            return f"the {backend.name} backend has no check modes here"
        return None

    def run(self, ctx: ToolContext) -> None:
        modes = backend_for(ctx.submission.framework).check_modes(ctx)
        if not any(m.available for m in modes):
            for mode in modes:
                self._unavailable(ctx, mode, None)
            return
        if ctx.builds_failed():
            return  # nothing runs; the rubric reports correctness as not assessed
        for case in nominal_cases(ctx, 1, "sanitizers")[:1]:
            self.rerun_case(ctx, case)

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        backend = backend_for(ctx.submission.framework)
        ref = ctx.session.reference(case)
        for mode in backend.check_modes(ctx):
            if not mode.available:
                self._unavailable(ctx, mode, case)
                continue
            if not ref.ok:
                ctx.add_evidence(self, outcome="unverified", defect="reference_failed", reason="reference failed",
                                 summary=f"{mode.title}: the reference failed on {case.label}",
                                 check=mode.title, result=failure_details(ref.call), rerun=ctx.rerun(self.name, case))
                return
            self._record(ctx, mode, case, ref.meta, backend.run_mode(ctx, mode, case, ref), ref.outputs)

    def _unavailable(self, ctx: ToolContext, mode: CheckMode, case: Case | None) -> None:
        ctx.add_evidence(self, outcome="unverified" if mode.required else "info", defect="cannot_run_here",
                         reason=mode.why_not,
                         summary=f"{mode.title}: not run: {mode.why_not}", check=mode.title,
                         config=ctx.environment(), rerun=ctx.rerun(self.name, case))

    def _record(self, ctx: ToolContext, mode: CheckMode, case: Case, ref_meta: dict, got: ModeRun,
                expected: object) -> None:
        sub = ctx.submission
        inputs = {"case": case.model_dump(), "tensors": ref_meta.get("inputs", [])}
        config = {**ctx.environment(), "mode": mode.name, **mode.options}
        common = {"check": mode.title, "inputs": inputs, "config": config, "rerun": ctx.rerun(self.name, case),
                  "duration_s": got.call.duration_s}
        data = {k: v for k, v in got.data.items() if k not in ("calls",)}
        defects = [{"code": d.code, "message": d.message, "line": d.line} for d in got.defects]
        if got.not_applicable:
            ctx.add_evidence(self, outcome="info", summary=f"{mode.title}: does not apply: {got.not_applicable}",
                             result={"defects": defects, **failure_details(got.call)}, **common)
            return
        hard = [d for d in got.defects if d.code not in ("observer_error", "sanitizer_incomplete")]
        if hard:
            first = hard[0]
            line = first.line if first.line else user_frame_line(got.call, sub.submission_file)
            ctx.add_evidence(self, outcome="fail", defect=first.code,
                             summary=f"{mode.title} on {case.label}: {first.code}: {first.message[:300]}",
                             result={"defects": defects, "data": data, **failure_details(got.call)},
                             spans=ctx.submission_span(line), **common)
            return
        if got.outputs is None:
            c = classify_failure(got.call, interpreted=ctx.setup.interpreted, input_numel=input_elements(ref_meta),
                                 on_cpu=not ctx.device.has_gpu, stage=f"the call under {mode.name}")
            ctx.add_evidence(self, outcome=c.outcome, defect=c.defect, summary=f"{mode.title}: {c.reason}",
                             reason=c.reason if c.outcome == "unverified" else None,
                             result={"defects": defects, **failure_details(got.call)},
                             spans=ctx.submission_span(user_frame_line(got.call, sub.submission_file)), **common)
            return
        if got.defects:
            reason = "; ".join(d.message for d in got.defects)[:300]
            ctx.add_evidence(self, outcome="unverified", defect=got.defects[0].code, reason=reason,
                             summary=f"{mode.title}: the check itself did not complete: {reason}",
                             result={"defects": defects, "data": data}, **common)
            return
        atol, rtol = ctx.tolerance()
        # Rationale: the same rule as correctness (tools/engine/compare/judge.py): outside the default
        # element-wise table but as accurate as the reference against float64 is correct.
        cmp, budget, verdict = judge_outputs(ctx, case, got.outputs, expected)
        result = {"comparison": cmp.model_dump(), "data": data}
        if budget is not None:
            result["error_budget"] = budget.model_dump()
        ctx.add_evidence(self, outcome="pass" if verdict.ok else "fail", defect=verdict.defect,
                         summary=f"{mode.title} on {case.label}: {verdict.summary}",
                         result=result, **{**common, "config": {**config, "atol": atol, "rtol": rtol}})
