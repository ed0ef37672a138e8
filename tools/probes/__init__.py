"""probes: runs the targeted inputs a planner proposed (``ToolContext.plan.probes``) against the
reference, the same way the correctness tool runs nominal cases (same session, same comparison).

The planner only chooses inputs; this tool produces the evidence. A probe that leaves the nominal
inputs bears on generality, one that only changes the seed on correctness (``leaves_nominal``; the
tool's own ``off_nominal_criterion`` and ``nominal_criterion``).
Without a planner (``--llm none``) nothing is proposed and the tool records nothing, so generality
stays unverified rather than passing for want of probes.
"""

from __future__ import annotations

import torch

from tools.engine.results import JudgedResult
from tools.engine.checking import compare_case
from tools.engine.tool import Tool, ToolContext
from tools.engine.harness.case import Case
from tools.engine.harness.tensors import flatten
from tools.engine.probe_requests import VALUE_TRANSFORMS, describe, leaves_nominal
from tools.engine.review_plan import PlannedProbe, ProbeOrigin


def _nonfinite(value: object) -> bool:
    return any(isinstance(leaf, torch.Tensor) and leaf.is_floating_point() and not torch.isfinite(leaf).all()
               for _, leaf in flatten(value))


class ProbesTool(Tool):
    name = "probes"
    result_model = JudgedResult
    off_nominal_criterion = "generality"
    """What a probe that leaves the nominal inputs (size, dtype, layout, values) bears on."""
    nominal_criterion = "correctness"
    """What a probe of the nominal inputs under another seed bears on."""
    criteria = (off_nominal_criterion, nominal_criterion)
    after = ("correctness",)
    description = "the planner's targeted inputs (shapes, strides, dtypes, value ranges) vs the reference"

    def applies(self, ctx: ToolContext) -> str | None:
        if not ctx.setup.can_run:
            return ctx.setup.why_not
        return None

    def run(self, ctx: ToolContext) -> None:
        if ctx.builds_failed():
            return  # the rubric reports generality as not assessed when builds did not pass
        for planned in ctx.plan.probes:
            self._run(ctx, planned)

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        case = case.model_copy(update={"label": describe(case, ctx.submission)})
        self._run(ctx, PlannedProbe(case=case, assumption="(rerun of a planned probe)"))

    def criterion(self, case: Case, ctx: ToolContext) -> str:
        """The one of this tool's criteria that ``case`` bears on."""
        return self.off_nominal_criterion if leaves_nominal(case, ctx.submission) else self.nominal_criterion

    def _run(self, ctx: ToolContext, planned: PlannedProbe) -> None:
        case = planned.case
        criterion = self.criterion(case, ctx)
        # The planner's words stay under inputs["probe"]: evidence spans are only what a tool measured.
        probe_info = ProbeOrigin(assumption=planned.assumption, finding=planned.finding,
                                 span=planned.span).model_dump()
        ref = ctx.session.reference(case)
        if ref.ok and any(t.kind in VALUE_TRANSFORMS for t in case.transforms) and _nonfinite(ref.outputs):
            # Rationale: a value probe that overflows the reference itself tests fp range, not the kernel.
            ctx.add_evidence(self, criteria=[criterion], outcome="unverified", defect="probe_out_of_range",
                             summary=f"{case.label}: the reference itself produces inf/NaN on these values, "
                                     "so the probe cannot judge the submission",
                             reason="probe drives the reference out of range", rerun=ctx.rerun(self.name, case),
                             inputs={"case": case.model_dump(), "probe": probe_info})
        else:
            compare_case(ctx, self, case, criteria=[criterion], extra_inputs={"probe": probe_info})
