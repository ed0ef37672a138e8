"""task_audit: whether the task itself can tell a right kernel from a wrong one (docs/task-audit.md).

Impostor outputs go through the task's own check and kreview's correctness judgement; the reference
is probed for determinism, mutation, non-finite outputs and sensitivity to each input and parameter
(tools/engine/task_audit.py). What it finds is about the task, never the kernel: one ``info`` item
carrying the audit (``Review.task``), a warning finding per degenerate trait, and, only where
kreview's own judgement accepts an impostor while the kernel's nominal checks passed, an
``unverified`` correctness item: the kernel's correctness then rests on a check a wrong answer
passes, which a human must settle (needs_human), never a fail.
"""

from __future__ import annotations

from reviewer.core.task import RESULT_KEY, TaskAudit
from tools.engine.facts import NominalChecks
from tools.engine.harness.case import Case
from tools.engine.task_audit import audit
from tools.engine.tool import Tool, ToolContext


def _bases(nominal: NominalChecks) -> set[str] | None:
    """What the kernel's passes rested on. Rationale: a kernel that passed inside the tolerance does not
    rest on the error budget, so an impostor that only the budget lets through does not undermine it;
    a pass that needed the budget (or whose basis is not recorded) rests on the whole judgement."""
    bases = {c.basis for c in nominal.passed}
    return {"tolerance"} if bases == {"tolerance"} else None


class TaskAuditTool(Tool):
    name = "task_audit"
    criteria = ("correctness",)
    after = ("correctness",)
    needs = (NominalChecks,)  # its needs_human rule reads the nominal checks: a rerun runs correctness first
    description = "impostor outputs through the task's check; the reference probed for degenerate traits"

    def applies(self, ctx: ToolContext) -> str | None:
        if not ctx.setup.can_run:
            return ctx.setup.why_not
        return None

    def run(self, ctx: ToolContext) -> None:
        result = audit(ctx)
        self._record(ctx, result)
        nominal = ctx.facts.get(NominalChecks)
        if nominal is None or not nominal.passed or nominal.failed:
            return
        fooled = result.own_check_fooled(_bases(nominal))
        if fooled:
            names = "; ".join(f.impostor or f.kind for f in fooled)
            ctx.add_evidence(self, outcome="unverified", defect="impostor_passes_own_check",
                             reason="kreview's own correctness judgement accepts an impostor on this task",
                             summary=(f"on this task kreview's own correctness check also accepts {len(fooled)} "
                                      f"impostor(s) ({names}): the kernel's correctness pass cannot rest on it alone"),
                             check="impostor outputs through kreview's correctness judgement",
                             inputs={"case": result.case}, result={"impostors": [f.model_dump() for f in fooled]},
                             rerun=ctx.rerun(self.name))

    def _record(self, ctx: ToolContext, result: TaskAudit) -> None:
        bad = [f for f in result.findings if f.degenerate]
        summary = (f"the task is degenerate: {'; '.join(sorted({f.kind for f in bad}))}" if bad else
                   f"the task's check ({result.task_check or 'none'}) rejected every impostor; no degenerate trait")
        ctx.add_evidence(self, outcome="info", defect="degenerate_task" if bad else None, summary=summary,
                         check="task audit: impostors through the task's check; reference probes",
                         inputs={"case": result.case}, result={RESULT_KEY: result.to_json()},
                         rerun=ctx.rerun(self.name))
        for f in bad:
            ctx.add_finding(origin="tool", category=f"task:{f.kind}", severity="warning",
                            message=f"task, not kernel: {f.detail} (covered by: {f.covered_by or 'none'})"[:1000])

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        self.run(ctx)
