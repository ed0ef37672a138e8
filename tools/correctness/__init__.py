"""correctness: the submission's outputs match the reference's on the nominal inputs under several
recorded seeds, compared in the parent with dtype-aware tolerances and, where the reference runs in
float64, the error budget (tools/compare/judge.py has the rule)."""

from __future__ import annotations

from tools.base import Tool, ToolContext, failure_details
from tools.cases import nominal_cases
from tools.compare import bitwise_equal
from tools.evaluate import Evaluation, evaluate, tolerance_config
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
        runs = [ev for case in nominal_cases(ctx, ctx.config.correctness_seeds)
                if (ev := self.probe(ctx, case)) is not None]
        self._check_outputs_follow_inputs(ctx, runs)

    def _check_outputs_follow_inputs(self, ctx: ToolContext, runs: list[Evaluation]) -> None:
        """Rationale: a loose tolerance can accept one fixed answer for every input (a scalar loss
        near its expected value); when the reference's outputs differ between seeds and the
        submission returns the very same bits every time, it is not computing from its inputs."""
        done = [ev for ev in runs if ev.run is not None and ev.run.outputs is not None and ev.judgement is not None]
        if len(done) < 2:
            return
        first = done[0]
        same_sub = all(bitwise_equal(ev.run.outputs, first.run.outputs) for ev in done[1:])  # type: ignore[union-attr]
        ref_differs = any(not bitwise_equal(ev.ref.outputs, first.ref.outputs) for ev in done[1:])
        if not (same_sub and ref_differs and all(ev.judgement.ok for ev in done)):  # type: ignore[union-attr]
            return
        seeds = [ev.case.seed for ev in done]
        ctx.add_evidence(self, outcome="fail", defect="constant_output",
                         summary=f"returned bitwise the same output for all {len(done)} seeds {seeds} while the "
                                 "reference's output differs between them: each passes only inside the tolerance, "
                                 "the output does not follow the inputs",
                         check="outputs across the nominal seeds", inputs={"seeds": seeds},
                         config={**ctx.environment(), **tolerance_config(ctx)},
                         result={"cases": [ev.case.model_dump() for ev in done]}, rerun=ctx.rerun(self.name))

    def probe(self, ctx: ToolContext, case: Case) -> Evaluation | None:
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
            return None
        if ev.status == "failed":
            c = ev.classified
            assert c is not None
            ctx.add_evidence(self, outcome=c.outcome, defect=c.defect, summary=c.reason,
                             reason=c.reason if c.outcome == "unverified" else None, check=check,
                             inputs=ev.inputs_record(), config=env, result=ev.result_record(),
                             spans=ctx.submission_span(ev.error_line(ctx)), rerun=rerun, duration_s=ev.duration_s)
            return None
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
        return ev
