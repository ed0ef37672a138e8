"""builds: the submission parses, imports, constructs and runs once on nominal inputs."""

from __future__ import annotations

from tools.engine.results import FailureDetails
from tools.engine.tool import Tool, ToolContext, failure_details, user_frame_line
from tools.engine.cases import nominal_cases
from tools.engine.facts import BuildOutcome
from tools.engine.harness.case import Case
from tools.engine.outcomes import classify_failure, input_elements


class BuildsTool(Tool):
    name = "builds"
    result_model = FailureDetails
    criteria = ("builds",)
    standard_check = "runs"
    leaves = (BuildOutcome,)
    description = "parse, import, construct and run once on the nominal inputs"

    def run(self, ctx: ToolContext) -> None:
        finished = False
        try:
            self._check(ctx)
            finished = True
        finally:  # a check that broke off reads as failed, as its tool_error item does
            ctx.facts.put(BuildOutcome(items=tuple(ctx.prior(self.name)), finished=finished))

    def _check(self, ctx: ToolContext) -> None:
        sub = ctx.submission
        if sub.syntax_error is not None:
            err = sub.syntax_error
            ctx.add_evidence(self, outcome="fail", defect="syntax_error",
                             summary=f"{err['file']} does not parse: {err['message']} at line {err['line']}",
                             check="ast.parse of the submission (no code run)",
                             result={"traceback": err["traceback"]}, spans=ctx.submission_span(err["line"]),
                             rerun=f"python -c \"import ast,sys; ast.parse(open(sys.argv[1]).read())\" "
                                   f"{sub.path(sub.submission_file)}")
            return
        if not ctx.setup.can_run:
            ctx.add_evidence(self, outcome="unverified", defect="cannot_run_here",
                             summary=f"not run: {ctx.setup.why_not}", reason=ctx.setup.why_not,
                             check="import and run in the sandbox", config=ctx.environment(),
                             rerun=ctx.rerun(self.name))
            return
        self.rerun_case(ctx, nominal_cases(ctx, 1)[0])

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        sub = ctx.submission
        load = ctx.session.load_submission()
        env = ctx.environment()
        if not (load.answered and load.ok):
            c = classify_failure(load, interpreted=ctx.setup.interpreted, input_numel=0,
                                 on_cpu=not ctx.device.has_gpu, stage="import")
            ctx.add_evidence(self, outcome=c.outcome, defect=c.defect, summary=c.reason,
                             check=f"import {sub.submission_file} in a sandbox child", config=env,
                             result=failure_details(load), reason=c.reason if c.outcome == "unverified" else None,
                             spans=ctx.submission_span(user_frame_line(load, sub.submission_file)),
                             rerun=ctx.rerun(self.name, case), duration_s=load.duration_s)
            return
        ref = ctx.session.reference(case)
        if not ref.ok:
            ctx.add_evidence(self, outcome="unverified", defect="reference_failed",
                             summary=f"the reference itself failed on {case.label or case.id}: {ref.call.failure_text()[:300]}",
                             reason="reference failed; nothing to run the submission against",
                             check="run the reference on the nominal inputs", inputs={"case": case.model_dump()},
                             config=env, result=failure_details(ref.call), rerun=ctx.rerun(self.name, case))
            return
        virtual = "tools.engine.harness.virtual_gpu" in ctx.setup.preludes
        run = ctx.session.run_submission(case, ref, instruments=["virtual_gpu"] if virtual else None)
        inputs = {"case": case.model_dump(), "tensors": ref.meta.get("inputs", [])}
        if not run.ok:
            c = classify_failure(run.call, interpreted=ctx.setup.interpreted, input_numel=input_elements(ref.meta),
                                 on_cpu=not ctx.device.has_gpu, stage="the first call on nominal inputs")
            ctx.add_evidence(self, outcome=c.outcome, defect=c.defect, summary=c.reason,
                             reason=c.reason if c.outcome == "unverified" else None,
                             check="construct and call once on the nominal inputs", inputs=inputs, config=env,
                             result=failure_details(run.call),
                             spans=ctx.submission_span(user_frame_line(run.call, sub.submission_file)),
                             rerun=ctx.rerun(self.name, case), duration_s=run.call.duration_s)
            return
        outs = run.meta.get("outputs", [])
        shapes = ", ".join(f"{o.get('dtype', o.get('type'))}{o.get('shape', '')}" for o in outs)
        ctx.add_evidence(self, outcome="pass",
                         summary=f"imported, constructed and ran on the nominal inputs ({case.label}) in "
                                 f"{run.call.duration_s:.2f}s, returning {len(outs)} output(s): {shapes}",
                         check="import, construct and call once on the nominal inputs", inputs=inputs,
                         config=env, result={"outputs": outs, "duration_s": round(run.call.duration_s, 3)},
                         rerun=ctx.rerun(self.name, case), duration_s=run.call.duration_s)
        if virtual:
            self._virtual_answers(ctx, case, run.meta.get("instruments", {}).get("virtual_gpu"))

    def _virtual_answers(self, ctx: ToolContext, case: Case, data: object) -> None:
        """Say which answers the kernel got from the virtual device rather than a GPU."""
        if not isinstance(data, dict) or not data.get("active"):
            return
        answers = [a for a in data.get("answers", []) if isinstance(a, dict)]
        autotune = data.get("autotune") or {}
        if not answers and not autotune:
            return
        tuned = "; ".join(f"{k}: ran config {v.get('chosen')} of {len(v.get('configs', []))}"
                          for k, v in sorted(autotune.items()) if isinstance(v, dict))
        ctx.add_evidence(self, outcome="info", defect="virtual_device",
                         summary=f"{len(answers)} driver/device quer{'y' if len(answers) == 1 else 'ies'} answered "
                                 f"by the virtual {data.get('gpu')} ({data.get('arch')}), not a GPU"
                                 + (f"; autotune without benchmarking ({tuned})" if tuned else "")
                                 + "; compile figures (n_regs, metadata.shared) come from the real compiler",
                         check="virtual device for the review target (tools/engine/harness/virtual_gpu.py)",
                         inputs={"case": case.model_dump()},
                         config={"virtual_gpu": data.get("gpu"), "arch": data.get("arch"),
                                 "chosen_by": data.get("chosen_by")},
                         result={"answers": answers[:60], "autotune": autotune},
                         rerun=ctx.rerun(self.name, case))
