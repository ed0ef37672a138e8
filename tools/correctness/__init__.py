"""correctness: the submission's outputs match the reference's on the nominal inputs under several
recorded seeds, compared in the parent with dtype-aware tolerances and, where the reference runs in
float64, the error budget (tools/compare/judge.py has the rule)."""

from __future__ import annotations

from tools.base import Tool, ToolContext, failure_details
from tools.cases import nominal_cases
from tools.evaluate import evaluate, tolerance_config
from tools.harness.case import Case


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
        if ctx.builds_failed():
            return  # the rubric reports correctness as not assessed when builds did not pass
        for case in nominal_cases(ctx, ctx.config.correctness_seeds):
            self.probe(ctx, case)

    def probe(self, ctx: ToolContext, case: Case) -> None:
        sub = ctx.submission
        env = ctx.environment()
        rerun = ctx.rerun(self.name, case)
        # Rationale: the budget is measured even when the tolerance already decides, so numerics can
        # judge accuracy at the nominal inputs without running the submission again.
        ev = evaluate(ctx, case, mode="correctness", keep_inputs_after=True, want_budget=True)
        check = f"compare with the reference on {case.label}"
        if ev.status == "reference_failed":
            ctx.add_evidence(self, outcome="unverified", defect="reference_failed",
                             summary=f"the reference failed on {case.label}: {ev.ref.call.failure_text()[:300]}",
                             reason="reference failed", inputs=ev.inputs_record(), config=env,
                             result=failure_details(ev.ref.call), rerun=rerun)
            return
        if ev.status == "failed":
            c = ev.classified
            assert c is not None
            ctx.add_evidence(self, outcome=c.outcome, defect=c.defect, summary=c.reason,
                             reason=c.reason if c.outcome == "unverified" else None, check=check,
                             inputs=ev.inputs_record(), config=env, result=ev.result_record(),
                             spans=ctx.submission_span(ev.error_line(ctx)), rerun=rerun, duration_s=ev.duration_s)
            return
        j = ev.judgement
        assert j is not None and ev.run is not None
        ctx.add_evidence(self, outcome="pass" if j.ok else "fail", defect=j.defect,
                         summary=f"{case.label}: {j.summary}", check=check, inputs=ev.inputs_record(),
                         config={**env, **tolerance_config(ctx)}, result=ev.result_record(), rerun=rerun,
                         duration_s=ev.duration_s)
        if sub.format == "gpumode":
            checked = ctx.session.task_check(case, ev.ref, ev.run)
            if checked is not None and checked.answered and checked.ok and checked.result.get("checker"):
                verdict = checked.result["checker"]
                ok = bool(verdict.get("ok"))
                ctx.add_evidence(self, outcome="pass" if ok else "fail", defect=None if ok else "task_check",
                                 summary=f"{case.label}: the task's own check_implementation "
                                         + ("accepts the output" if ok else f"rejects it: {verdict.get('message', '')[:300]}"),
                                 check="reference.py check_implementation(data, output)", inputs=ev.inputs_record(),
                                 config=env, result={"checker": verdict}, rerun=rerun)
