"""correctness: the submission's outputs match the reference's on the nominal inputs under several
recorded seeds, compared in the parent with dtype-aware tolerances."""

from __future__ import annotations

from tools.base import Tool, ToolContext, failure_details, user_frame_line
from tools.cases import nominal_cases
from tools.compare import compare_outputs
from tools.harness.case import Case
from tools.outcomes import classify_failure, input_elements


class CorrectnessTool(Tool):
    name = "correctness"
    criteria = ("correctness",)
    after = ("builds",)
    description = "outputs vs the reference on nominal inputs under several seeds"

    def applies(self, ctx: ToolContext) -> str | None:
        if not ctx.setup.can_run:
            return ctx.setup.why_not
        return None

    def run(self, ctx: ToolContext) -> None:
        builds = ctx.prior("builds")
        if builds and any(e.outcome != "pass" for e in builds):
            return  # the rubric reports correctness as not assessed when builds did not pass
        for case in nominal_cases(ctx, ctx.config.correctness_seeds):
            self.probe(ctx, case)

    def probe(self, ctx: ToolContext, case: Case) -> None:
        sub = ctx.submission
        env = ctx.environment()
        ref = ctx.session.reference(case)
        inputs = {"case": case.model_dump(), "tensors": ref.meta.get("inputs", [])}
        rerun = ctx.rerun(self.name, case)
        if not ref.ok:
            ctx.add_evidence(self, outcome="unverified", defect="reference_failed",
                             summary=f"the reference failed on {case.label}: {ref.call.failure_text()[:300]}",
                             reason="reference failed", inputs=inputs, config=env,
                             result=failure_details(ref.call), rerun=rerun)
            return
        run = ctx.session.run_submission(case, ref)
        if not run.ok:
            c = classify_failure(run.call, interpreted=ctx.setup.interpreted, input_numel=input_elements(ref.meta),
                                 on_cpu=not ctx.device.has_gpu, stage=f"the call on {case.label}")
            ctx.add_evidence(self, outcome=c.outcome, defect=c.defect, summary=c.reason,
                             reason=c.reason if c.outcome == "unverified" else None,
                             check=f"compare with the reference on {case.label}", inputs=inputs, config=env,
                             result=failure_details(run.call),
                             spans=ctx.submission_span(user_frame_line(run.call, sub.submission_file)),
                             rerun=rerun, duration_s=run.call.duration_s)
            return
        atol, rtol = ctx.tolerance()
        cmp = compare_outputs(run.outputs, ref.outputs, atol=atol, rtol=rtol)
        tol_note = ctx.submission.tolerance_source if (atol, rtol) == (sub.tolerance.atol, sub.tolerance.rtol) \
            and sub.tolerance_source else ("--atol/--rtol" if (atol, rtol) != (None, None) else "per-dtype defaults")
        config = {**env, "atol": atol, "rtol": rtol, "tolerance_source": tol_note}
        result = {"comparison": cmp.model_dump(), "duration_s": round(run.call.duration_s, 3)}
        summary = f"{case.label}: " + (cmp.headline() if cmp.ok else cmp.reason)
        ctx.add_evidence(self, outcome="pass" if cmp.ok else "fail", defect=None if cmp.ok else "mismatch",
                         summary=summary, check=f"compare with the reference on {case.label}",
                         inputs=inputs, config=config, result=result, rerun=rerun,
                         duration_s=run.call.duration_s)
        if sub.format == "gpumode":
            checked = ctx.session.task_check(case, ref, run)
            if checked is not None and checked.answered and checked.ok and checked.result.get("checker"):
                verdict = checked.result["checker"]
                ok = bool(verdict.get("ok"))
                ctx.add_evidence(self, outcome="pass" if ok else "fail", defect=None if ok else "task_check",
                                 summary=f"{case.label}: the task's own check_implementation "
                                         + ("accepts the output" if ok else f"rejects it: {verdict.get('message', '')[:300]}"),
                                 check="reference.py check_implementation(data, output)", inputs=inputs,
                                 config=env, result={"checker": verdict}, rerun=rerun)
