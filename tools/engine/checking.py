"""The one way a tool checks a submission against the reference on one case and records it."""

from __future__ import annotations

from typing import Any

from tools.engine.evaluate import Evaluation, evaluate, tolerance_config
from tools.engine.formats import format_of
from tools.engine.harness.case import Case
from tools.engine.tool import Tool, ToolContext, failure_details

# judgements about the values themselves (not the outputs' structure): where they are computed is worth naming
_VALUE_BASES = ("tolerance", "nonfinite", "constant_output", "error_budget")


def compare_case(ctx: ToolContext, tool: Tool, case: Case, *, criteria: list[str] | None = None,
                 extra_inputs: dict[str, Any] | None = None) -> Evaluation | None:
    """Run the submission on ``case``, compare with the reference, and record the evidence under
    ``tool`` (correctness on nominal cases, probes on planned ones): one comparison for both.
    Every item gets ``criteria`` (default: the tool's) and ``extra_inputs`` among its ``inputs``."""
    sub = ctx.submission
    env = ctx.environment()
    rerun = ctx.rerun(tool.name, case)
    # Rationale: the budget is measured even when the tolerance already decides, so numerics can
    # judge accuracy at the nominal inputs without running the submission again.
    ev = evaluate(ctx, case, mode="correctness", keep_inputs_after=True, want_budget=True)
    check = f"compare with the reference on {case.label}"
    inputs = {**ev.inputs_record(), **(extra_inputs or {})}
    if ev.status == "reference_failed":
        ctx.add_evidence(tool, criteria=criteria, outcome="unverified", defect="reference_failed",
                         summary=f"the reference failed on {case.label}: {ev.ref.call.failure_text()[:300]}",
                         reason="reference failed", inputs=inputs, config=env,
                         result=failure_details(ev.ref.call), rerun=rerun)
        return None
    if ev.status == "failed":
        c = ev.classified
        assert c is not None
        ctx.add_evidence(tool, criteria=criteria, outcome=c.outcome, defect=c.defect, summary=c.reason,
                         reason=c.reason if c.outcome == "unverified" else None, check=check,
                         inputs=inputs, config=env, result=ev.result_record(),
                         spans=ctx.submission_span(ev.error_line(ctx)), rerun=rerun, duration_s=ev.duration_s)
        return None
    j = ev.judgement
    assert j is not None and ev.run is not None
    # Rationale: a value mismatch names no line by itself; the author is pointed at where the kernels
    # compute what they store (a static slice), the place a wrong formula or accumulator lives.
    spans = ctx.value_spans() if not j.ok and not j.unverified and j.basis in _VALUE_BASES else []
    ctx.add_evidence(tool, criteria=criteria, outcome="pass" if j.ok else ("unverified" if j.unverified else "fail"),
                     defect=j.defect, reason=j.unverified, summary=_labelled(case, j.summary), check=check, inputs=inputs,
                     config={**env, **tolerance_config(ctx)}, result=ev.result_record(), rerun=rerun,
                     duration_s=ev.duration_s, spans=spans)
    own_check = format_of(sub).own_check
    if own_check is not None:
        checked = ctx.session.task_check(case, ev.ref, ev.run)
        if checked is not None and checked.answered and checked.ok and checked.result.get("checker"):
            verdict = checked.result["checker"]
            ok = bool(verdict.get("ok"))
            ctx.add_evidence(tool, criteria=criteria, outcome="pass" if ok else "fail", defect=None if ok else "task_check",
                             summary=_labelled(case, f"the task's own {own_check} ")
                                     + ("accepts the output" if ok else f"rejects it: {verdict.get('message', '')[:300]}"),
                             check=f"reference.py {own_check}(data, output)", inputs=inputs,
                             config=env, result={"checker": verdict}, rerun=rerun)
    return ev


def _labelled(case: Case, text: str) -> str:
    """``text`` after the case's label; a case rebuilt from a rerun command has none (its JSON carries
    only what decides the run), and then the text stands alone instead of after a bare colon."""
    return f"{case.label}: {text}" if case.label else text
