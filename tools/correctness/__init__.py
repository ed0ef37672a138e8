"""correctness: the submission's outputs match the reference's on the nominal inputs under several
recorded seeds, compared in the parent with dtype-aware tolerances and, where the reference runs in
float64, the error budget (tools/engine/compare/judge.py has the rule)."""

from __future__ import annotations

from tools.engine.results import CorrectnessResult
from tools.engine.checking import compare_case
from tools.engine.tool import Tool, ToolContext
from tools.engine.cases import nominal_cases
from tools.engine.compare import bitwise_equal
from tools.engine.evaluate import Evaluation, tolerance_config
from tools.engine.facts import NominalChecks
from tools.engine.harness.case import Case


class CorrectnessTool(Tool):
    name = "correctness"
    result_model = CorrectnessResult
    criteria = ("correctness",)
    standard_check = "nominal_outputs"
    leaves = (NominalChecks,)
    after = ("builds",)
    replays_cases = True
    description = "outputs vs the reference on nominal inputs under several seeds"

    def applies(self, ctx: ToolContext) -> str | None:
        if not ctx.setup.can_run:
            return ctx.setup.why_not
        return None

    def run(self, ctx: ToolContext) -> None:
        try:
            self._check(ctx)
        finally:  # what it found so far, for the tools that judge beyond the nominal inputs
            ctx.facts.put(NominalChecks.of(ctx.prior(self.name)))

    def _check(self, ctx: ToolContext) -> None:
        if ctx.builds_failed():
            return  # the rubric reports correctness as not assessed when builds did not pass
        runs = [ev for case in nominal_cases(ctx, ctx.options.seeds)
                if (ev := self.rerun_case(ctx, case)) is not None]
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

    def rerun_case(self, ctx: ToolContext, case: Case) -> Evaluation | None:
        return compare_case(ctx, self, case)
