"""numerics: is the submission as accurate as the operator it replaces, and does it survive the
inputs numerical code breaks on?

Stress cases (tools/numerics/stress_cases.py), each one case judged in ``accuracy`` mode (the error budget
against float64 where the reference runs in float64, NaN/inf positions strict): accuracy at the
nominal inputs, large magnitudes, a shifted mean with small variance, NaN, +-inf, -0 and
subnormal injection, fp16/bf16 inputs with the model cast, and determinism (two identical runs
compared bitwise: reported, a failure only when the submission declares determinism_required).
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from tools.engine.results import JudgedResult
from tools.engine.tool import Tool, ToolContext
from tools.engine.nominal_run import NominalRun, affordable_params, backstop_s, instruments_for, measure, prerequisites_failed
from tools.engine.compare import ErrorBudget, bitwise_equal
from tools.engine.compare.bitwise import differing_elements
from tools.engine.contract import outside_contract
from tools.engine.evaluate import Evaluation, evaluate, tolerance_config
from tools.engine.facts import NominalChecks
from tools.engine.harness.case import Case
from tools.engine.harness.tensors import flatten
from tools.numerics.accumulators import low_precision_accumulators
from tools.numerics.accumulators import message as accumulator_message
from tools.numerics.stress_cases import PROBES, NumericsProbe, plan
from tools.engine.outcomes import input_elements, refuses_dtype
from tools.engine.work_units import WorkBudget


class NumericsTool(Tool):
    name = "numerics"
    result_model = JudgedResult
    criteria = ("numerics",)
    after = ("correctness", "generality")
    description = "accuracy vs float64, large magnitudes, cancellation, NaN/inf/-0/subnormals, fp16/bf16, determinism"

    # Rationale: work units (tools/engine/work_units.py, ~1 ms each) for the ten probes at the probe size: every
    # probe of a level-1 problem with --budget 1, about 15 s of interpreted calls on 2 cores.
    budget_units: ClassVar[float] = 16000.0
    # Rationale: the probe size: inputs are reduced until one call counts at most this many units
    # (and a sixth of the budget), so every probe fits in the budget.
    case_cap_units: ClassVar[float] = 3000.0
    # Rationale: a backstop only (ten times the planned work on an idle machine); what it cuts is
    # reported unverified, never as a pass.
    backstop_s: ClassVar[float] = 160.0

    def applies(self, ctx: ToolContext) -> str | None:
        return None if ctx.setup.can_run else ctx.setup.why_not

    def run(self, ctx: ToolContext) -> None:
        if prerequisites_failed(ctx, self, "numerics probes"):
            return
        t0 = time.monotonic()
        base = measure(ctx, "probes")
        if not base.ok:
            ctx.add_evidence(self, outcome="unverified", defect="baseline_failed", reason=base.evaluation.summary(),
                             summary=f"not assessed: the nominal run failed: {base.evaluation.summary()[:300]}",
                             check="numerics probes", inputs=base.evaluation.inputs_record(),
                             result=base.evaluation.result_record(), rerun=ctx.rerun(self.name, base.case))
            return
        self._accuracy(ctx, base)
        self._accumulators(ctx)
        budget = WorkBudget(self.budget_units * ctx.options.budget)
        deadline = t0 + backstop_s(self.backstop_s, base, budget.total, ctx.options.budget)
        # Rationale: every probe (determinism counts twice) fits the budget at the probe size.
        n_calls = len(plan(ctx, base, dict(base.case.params))) + 1
        params = affordable_params(ctx, base, min(self.case_cap_units, budget.total / n_calls))
        for probe, case in plan(ctx, base, params, nominal_cap_units=self.case_cap_units):
            # Rationale: the plan is counted, not timed; a probe it or the backstop leaves out is
            # unverified (no pass without the check), and says how to run it.
            ref = ctx.session.reference(case)
            units = base.units(input_elements(ref.meta)) if ref.ok else 0.0
            if probe.name == "determinism":
                units *= 2
            if not budget.affords(units):
                budget.cut.append(probe.title)
                ctx.add_evidence(self, outcome="unverified", defect="over_budget",
                                 reason=f"{units:.0f} work units, over the {budget.left:.0f} left of "
                                        f"{budget.total:.0f}",
                                 summary=f"{probe.title}: not run, over the numerics work budget ({units:.0f} units, "
                                         f"{budget.left:.0f} of {budget.total:.0f} left; --budget raises it)",
                                 check=probe.check, inputs={"case": case.model_dump()},
                                 config={"work": budget.record()}, rerun=ctx.rerun(self.name, case))
                continue
            if time.monotonic() > deadline:
                ctx.add_evidence(self, outcome="unverified", defect="backstop",
                                 reason="the wall-clock backstop was reached",
                                 summary=f"{probe.title}: not run, the numerics wall-clock backstop was reached",
                                 check=probe.check, inputs={"case": case.model_dump()},
                                 rerun=ctx.rerun(self.name, case))
                continue
            budget.spend(units)
            self._run_probe(ctx, probe, case, base, units)

    # -- static: low-precision accumulators --------------------------------------------------
    def _accumulators(self, ctx: ToolContext) -> None:
        for acc in low_precision_accumulators(ctx.source.text):
            ctx.add_finding(origin="tool", category="low_precision_accumulator", severity="warning",
                            message=accumulator_message(acc), spans=ctx.submission_span(acc.line))

    def _confirm_accumulators(self, ctx: ToolContext, ev_id: str) -> None:
        for f in ctx.findings:
            if f.category == "low_precision_accumulator" and ev_id not in f.confirmed_by:
                f.confirmed_by.append(ev_id)

    def _clear_accumulators(self, ctx: ToolContext, ev_id: str, ev: Evaluation) -> None:
        """The cancelling sums stayed within budget: an accumulator flagged statically did not lose precision
        there. Said on the finding, with the probe's length: a running sum over more terms than each of
        its lanes saw here may still round (a cleared finding is not proof for every size)."""
        length = max((d.get("shape") or [0])[-1] for d in ev.ref.meta.get("inputs", []) if d.get("shape")) \
            if ev.ref.ok else 0
        note = (f" [cleared by {ev_id}: on exactly cancelling rows of {length} the error stayed within the budget "
                f"against float64; longer sums per lane than that run are not covered]")
        for f in ctx.findings:
            if f.category == "low_precision_accumulator" and not f.confirmed_by and ev_id not in f.message:
                f.message += note

    # -- accuracy at nominal inputs ----------------------------------------------------------
    def _accuracy(self, ctx: ToolContext, base: NominalRun) -> None:
        """Judged from runs already made: the baseline and correctness' seeds both measured the
        error budget, so no extra call is needed. The worst of them decides."""
        probe = PROBES["accuracy"]
        ev = base.evaluation
        items = [(ev.case, ev.budget)]
        nominal = ctx.facts.get(NominalChecks)
        for c in nominal.passed if nominal is not None else ():
            b = c.error_budget
            if b and b.get("available") and c.case is not None:
                items.append((Case.model_validate(c.case), ErrorBudget.model_validate(b)))
        measured = [(c, b) for c, b in items if b is not None and b.available]
        common: dict[str, Any] = {"check": probe.check, "config": {**ctx.environment(), **tolerance_config(ctx)}}
        if not measured:
            why = ev.budget.reason if ev.budget is not None else "no float64 reference"
            case = ev.case.model_copy(update={"id": "numerics-accuracy", "label": probe.title})
            ctx.add_evidence(self, outcome="info", summary=f"{probe.title}: not measured ({why})",
                             inputs={"case": case.model_dump()}, result={"error_budget": None},
                             rerun=ctx.rerun(self.name, case), **common)
            return
        case, worst = max(measured, key=lambda cb: cb[1].ratio or 0.0)
        case = case.model_copy(update={"id": "numerics-accuracy", "label": probe.title})
        ok = all(b.ok for _, b in measured)
        ctx.add_evidence(self, outcome="pass" if ok else "fail", defect=None if ok else probe.defect,
                         summary=f"{probe.title}: worst of {len(measured)} nominal run(s): {worst.describe()}",
                         inputs={"case": case.model_dump()},
                         result={"basis": "error_budget", "error_budget": worst.model_dump(),
                                 "ratios": [round(b.ratio or 0.0, 4) for _, b in measured]},
                         rerun=ctx.rerun(self.name, case), **common)

    # -- one probe ---------------------------------------------------------------------------
    def _run_probe(self, ctx: ToolContext, probe: NumericsProbe, case: Case, base: NominalRun | None,
                   units: float | None = None) -> None:
        if probe.name == "determinism":
            self._determinism(ctx, probe, case, base)
            return
        ref = ctx.session.reference(case)
        if units is None and base is not None and ref.ok:
            units = base.units(input_elements(ref.meta))
        est = base.estimate_s(units) if base is not None and units is not None else None
        timeout = base.timeout_s(ctx, est) if base is not None and est is not None else None
        expected = base.expected_s(ctx, est) if base is not None and est is not None else None
        ev = evaluate(ctx, case, mode=probe.mode, instruments=instruments_for(ctx), timeout=timeout, expected_s=expected,
                      allow_rejection=True)
        self._record(ctx, probe, ev)

    def _record(self, ctx: ToolContext, probe: NumericsProbe, ev: Evaluation) -> None:
        common: dict[str, Any] = {"check": probe.check, "inputs": ev.inputs_record(),
                                  "config": {**ctx.environment(), **tolerance_config(ctx)},
                                  "result": ev.result_record(), "rerun": ctx.rerun(self.name, ev.case),
                                  "duration_s": ev.duration_s}
        status = ev.status
        if status == "reference_failed":
            ctx.add_evidence(self, outcome="info", summary=f"{probe.title}: not applicable, the reference itself "
                             f"fails on these inputs ({ev.ref.call.failure_text()[:200]})", **common)
        elif status == "rejected":
            ctx.add_evidence(self, outcome="info", summary=f"{probe.title}: {ev.summary()}", **common)
        elif (status == "failed" and probe.name in ("float16", "bfloat16", "float16_range", "float16_squares",
                                                                   "bfloat16_precision")
              and ev.case.dtype is not None and ev.case.dtype != (ctx.submission.dtype or "float32")
              and refuses_dtype(ev.classified)):
            c = ev.classified
            assert c is not None
            ctx.add_evidence(self, outcome="info", defect="unsupported_dtype",
                             summary=f"{probe.title}: not supported by the submission (it raises; the task's "
                                     f"dtype is {ctx.submission.dtype or 'float32'}): {c.reason[:400]}",
                             spans=ctx.submission_span(ev.error_line(ctx)), **common)
        elif status == "failed":
            c = ev.classified
            assert c is not None
            ctx.add_evidence(self, outcome=c.outcome, defect=c.defect, reason=c.reason if c.outcome == "unverified"
                             else None, summary=f"{probe.title}: {c.reason}",
                             spans=ctx.submission_span(ev.error_line(ctx)), **common)
        elif probe.name == "cancelling_sum" and (why := _inexact_reference(ev)) is not None:
            ctx.add_evidence(self, outcome="info", summary=f"{probe.title}: not applicable, {why}", **common)
        else:
            j = ev.judgement
            assert j is not None
            nonfinite = sum(o.expected_nonfinite for o in ev.comparison.outputs) if ev.comparison else 0
            lead = (f"the reference's {nonfinite} NaN/inf output position(s) are matched; "
                    if nonfinite and j.basis != "nonfinite" else "")
            advisory = None if j.ok else outside_contract(ctx.submission, ev.case)
            item = ctx.add_evidence(self, outcome="pass" if j.ok else ("info" if advisory else
                                                                       "unverified" if j.unverified else "fail"),
                                    defect=None if j.ok else (j.defect if j.unverified and not advisory
                                                              else probe.defect),
                                    reason=j.unverified if j.unverified and not advisory else None,
                                    summary=f"{probe.title}: {lead}{j.summary}" + (f" ({advisory})" if advisory else ""),
                                    **common)
            if not j.ok and probe.name in ("float16", "float16_range", "float16_squares",
                                                        "bfloat16_precision", "large_magnitude", "cancelling_sum"):
                self._confirm_accumulators(ctx, item.id)
            elif j.ok and probe.name == "cancelling_sum":
                self._clear_accumulators(ctx, item.id, ev)

    def _determinism(self, ctx: ToolContext, probe: NumericsProbe, case: Case, base: NominalRun | None) -> None:
        ref = ctx.session.reference(case)
        common: dict[str, Any] = {"check": probe.check, "inputs": {"case": case.model_dump(),
                                                                   "tensors": ref.meta.get("inputs", [])},
                                  "config": ctx.environment(), "rerun": ctx.rerun(self.name, case)}
        if not ref.ok:
            ctx.add_evidence(self, outcome="unverified", defect="reference_failed", reason="reference failed",
                             summary=f"{probe.title}: the reference failed", **common)
            return
        # Rationale: the baseline already ran these exact inputs (same seed, sizes, no transforms).
        reuse = base is not None and base.case.params == case.params and base.evaluation.run is not None
        runs = [base.evaluation.run] if reuse and base is not None and base.evaluation.run is not None else []
        timeout = (base.timeout_s(ctx, base.estimate_s(base.units(input_elements(ref.meta))))
                   if base is not None else None)
        while len(runs) < 2:
            runs.append(ctx.session.run_submission(case, ref, keep_inputs_after=False, timeout=timeout))
        if not all(r.ok for r in runs):
            bad = next(r for r in runs if not r.ok)
            ctx.add_evidence(self, outcome="unverified", defect="run_failed", reason=bad.call.failure_text()[:300],
                             summary=f"{probe.title}: a run failed: {bad.call.failure_text()[:300]}", **common)
            return
        same = bitwise_equal(runs[0].outputs, runs[1].outputs)
        required = ctx.submission.determinism_required
        interp = ctx.setup.interpreted
        limits = (" (under the CPU interpreter programs run one at a time, so nondeterminism from atomics or "
                  "races cannot show here)") if interp else ""
        if same:
            if required and interp:
                ctx.add_evidence(self, outcome="unverified", defect="determinism_unobservable",
                                 reason="the interpreter serialises programs", summary=f"{probe.title}: two runs are "
                                 f"bitwise identical{limits}; the task requires determinism, which needs a GPU run",
                                 **common)
            else:
                ctx.add_evidence(self, outcome="pass", summary=f"{probe.title}: two runs on the same inputs are "
                                 f"bitwise identical{limits}", **common)
            return
        diffs = {}
        for (p, a), (_, b) in zip(flatten(runs[0].outputs), flatten(runs[1].outputs), strict=False):
            if hasattr(a, "shape") and hasattr(b, "shape") and a.shape == b.shape and a.dtype == b.dtype:
                diffs[p] = differing_elements(a, b)
        text = (f"{probe.title}: two runs on the same inputs differ bitwise "
                f"({', '.join(f'output {p}: {n} elements' for p, n in diffs.items() if n)})")
        ctx.add_evidence(self, outcome="fail" if required else "info", defect="nondeterminism",
                         summary=text + ("; the task requires determinism" if required else
                                         " (reported; determinism is not required by this task)"),
                         result={"differing_elements": diffs}, **common)

    # -- probe (rerun) -----------------------------------------------------------------------
    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        name = case.id.removeprefix("numerics-")
        probe = PROBES.get(name)
        if probe is None:
            raise NotImplementedError(f"numerics probe ids are numerics-<name> with name in {sorted(PROBES)}; "
                                      f"got {case.id!r}")
        if name == "accuracy":
            ev = evaluate(ctx, case, mode="accuracy", instruments=instruments_for(ctx), want_budget=True)
            self._record(ctx, probe, ev)
            return
        self._run_probe(ctx, probe, case, None)


def _inexact_reference(ev: Evaluation) -> str | None:
    """Why the cancelling-sum probe cannot judge: the reference itself is off by more than its output's
    rounding on values whose sums are exact (a product or a nonlinear step: the inputs are not summed as
    they are), or no float64 run measured it. None: it judges."""
    b = ev.budget
    if b is None or not b.available:
        return f"no float64 run to judge exact sums ({b.reason if b is not None else 'none made'})"
    off = [o for o in b.outputs if o.ref_max_err > o.floor]
    if off:
        o = off[0]
        return (f"the reference's own error on output {o.path} ({o.ref_max_err:.3g}) exceeds one ULP of its "
                f"largest value ({o.floor:.3g}): the task does not sum these values exactly as they are")
    return None
