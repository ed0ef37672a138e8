"""integrity_runtime: probe the submission in its sandbox child and judge whether it does the work.

One reference request (its operators traced; outputs for two input contents A and B with the same
construction) and one submission request (three calls on one bound instance: A traced, B written
into the same tensors, A in new tensors). Then, for precision candidates only, the reference once
more on inputs rounded to the narrower format, to weigh the downgrade against the error budget.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from reviewer.core.models import Evidence
from tools.engine.tool import Tool, ToolContext, failure_details
from tools.engine.cases import nominal_cases
from tools.engine.compare import compare_outputs
from tools.engine.evaluate import budget_for, judge_outputs
from tools.engine.facts import BuildOutcome
from tools.engine.harness.case import Case, Transform
import tools.integrity.checks as C
from tools.integrity.static_scan import Scan, ScanFact, scan_submission
import tools.integrity.many_calls as M
from tools.integrity.probe_size import SHORT_CALLS, kept_by
from tools.engine.nominal_run import affordable_params, knob_ratios, measure, size_knobs_of
from tools.engine.outcomes import classify_failure, input_elements
from tools.engine.work_units import CALL_UNITS, program_factor
from tools.engine.sandbox import safe_files
from tools.engine.sandbox.pid_counter import target_for
from tools.engine.session import ReferenceRun, SandboxSession

_MANY_CALLS_ID = "integrity-many-calls"

_FORMAT_WORDS = {"tf32": "TF32 (10-bit mantissa)", "float16": "float16", "bfloat16": "bfloat16",
                 "float8": "float8 e4m3"}


def second_content(case: Case, seed: int, label: str) -> Case:
    """``case``'s inputs under another seed for the same bound model: the reference for them is built
    under ``case``'s model seed (its random parameters), as the submission bound once on ``case`` is; a
    model with ``nn.Linear`` weights otherwise differs from the reference on every element."""
    return case.model_copy(update={"id": f"{case.id}-b", "seed": seed, "label": label,
                                   "model_seed": case.weights_seed,
                                   "params": {**case.params, "seed": seed} if "seed" in case.params
                                   else dict(case.params)})


_UNREAD = object()
"""A probe's output file that did not read back (``IntegrityRuntimeTool._load``)."""
_UNREAD_TEXT = ("the {what}'s output files written by the harness did not read back ({names}): a link, FIFO or "
                "folder in their place, or a corrupt file; the checks that compare the submission's outputs "
                "cannot run (tests/data/sandbox/hostile/withheld_probe_outputs.py)")


class IntegrityRuntimeTool(Tool):
    name = "integrity_runtime"
    criteria = ("integrity",)
    after = ("builds", "correctness", "integrity_static")
    fresh_submission_child = True
    description = "trace forward's operators and launches, probe caching, mutation, harness access"

    @staticmethod
    def _second_pid(ctx: ToolContext) -> int:
        """The many-calls probe's second child's pid: drawn from the review's seed (the same seed, the same pid)."""
        return target_for(ctx.seeds(1, "integrity-many-calls-pid")[0])

    # Rationale: the many-calls probe's second child starts once the generality search has ended, on the
    # core the chain of single calls after it leaves idle (issue 34); see ``_run``.
    ahead_after = "generality"

    def ahead(self, ctx: ToolContext) -> None:
        ctx.session.stand_by("submission", pid_target=self._second_pid(ctx))

    def run(self, ctx: ToolContext) -> None:
        try:
            self._run(ctx)
        finally:
            self._report_alarms(ctx)

    def _report_alarms(self, ctx: ToolContext) -> None:
        """Alarms no item of this tool has judged yet (raised where the probe did not run, or by a later
        child: the many-calls probe's, say), as their own fail. Rationale: an alarm decides integrity
        whichever tool's request raised it, even where the probe's own reply claims nothing happened."""
        alarms = ctx.session.submission_alarms() if ctx.setup.can_run else []
        judged = {(a.get("event"), a.get("file"), a.get("line"))
                  for e in ctx.evidence if e.tool == self.name for a in (e.result or {}).get("alarms") or []}
        new = [a for a in alarms if (a.get("event"), a.get("file"), a.get("line")) not in judged]
        if not new:
            return
        c = C.check_alarms(new, ctx.submission.submission_file)
        ctx.add_evidence(self, outcome=c.outcome, summary=c.summary, check=f"{c.name}: {c.check}", defect=c.defect,
                         result=c.result, spans=[s for line in c.lines[:4] for s in ctx.submission_span(line)],
                         rerun=ctx.rerun(self.name))

    def _run(self, ctx: ToolContext) -> None:
        if not ctx.setup.can_run:
            ctx.add_evidence(self, outcome="unverified", defect="cannot_run_here", reason=ctx.setup.why_not,
                             summary=f"runtime integrity probes not run: {ctx.setup.why_not}",
                             check="trace and probe forward in the sandbox", config=ctx.environment(),
                             rerun=ctx.rerun(self.name))
            return
        built = ctx.facts.get(BuildOutcome)
        builds = list(built.items) if built is not None else []
        forged = [e for e in builds if e.defect == "harness_tampering"]
        if forged:
            ctx.add_evidence(self, outcome="fail", defect="harness_tampering",
                             summary=f"attempt on the harness: {forged[0].summary[:300]} [{forged[0].id}]",
                             check="the builds tool's call, read for harness tampering", result=forged[0].result,
                             rerun=forged[0].rerun or ctx.rerun(self.name))
            return
        if built is not None and not any(e.outcome == "pass" for e in builds):
            ctx.add_evidence(self, outcome="unverified", defect="not_built", reason="the submission did not run",
                             summary="runtime integrity probes not run: the submission did not build and run "
                                     f"({built.why[:200]})", check="trace and probe forward in the sandbox",
                             rerun=ctx.rerun(self.name))
            return
        # Rationale: the many-calls probe's second child (its raised pid) starts now at the latest (``ahead``
        # starts it when the generality search ends), so it is up when the probe's first part ends (started
        # there, the parent waited about a second for it); not before the search ends, when it would take the
        # cores from it (issue 34). Older, it is no less the "has been up since" child the probe wants
        # (issue 28, item 3). A second call finds it standing by and starts nothing.
        ctx.session.stand_by("submission", pid_target=self._second_pid(ctx))
        # the alarms are reported once, after both probes (``run``), not after each
        # Rationale: the many-calls probe sizes itself from a nominal run (memoised per review); made here, it
        # runs in the child the probe uses, not in the fresh one the withheld run's restart puts in place,
        # which the many-calls probe wants fresh (without this, each review started one more child)
        measure(ctx, "probes")
        self._case(ctx, nominal_cases(ctx, 1, "integrity")[0])
        self._many_calls(ctx, None)

    # -- one case ----------------------------------------------------------------------------
    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        try:
            self._case(ctx, case)
        finally:
            self._report_alarms(ctx)

    def _case(self, ctx: ToolContext, case: Case) -> None:
        if case.id == _MANY_CALLS_ID:
            self._many_calls(ctx, case)
            return
        session, sub = ctx.session, ctx.submission
        rerun, env = ctx.rerun(self.name, case), ctx.environment()
        inputs = {"case": case.model_dump()}
        ref_a = session.reference(case)
        if not ref_a.ok:
            ctx.add_evidence(self, outcome="unverified", defect="reference_failed", reason="reference failed",
                             summary=f"the reference failed on {case.label}: {ref_a.call.failure_text()[:300]}",
                             check="run the reference", inputs=inputs, config=env,
                             result=failure_details(ref_a.call), rerun=rerun)
            return
        inputs["tensors"] = ref_a.meta.get("inputs", [])
        seed_b = ctx.seeds(1, "integrity-second-content")[0]
        case_b = second_content(case, seed_b, f"{case.label} (secret)")
        ref_b = session.reference(case_b)
        inputs["second_seed"] = seed_b
        assert ref_a.inputs_path is not None
        folder = ref_a.inputs_path.parent / f"integrity-{len(ctx.evidence)}"
        folder.mkdir(parents=True, exist_ok=True)
        try:
            observed = self._observe(ctx, case, ref_a, ref_b, folder)
        finally:
            safe_files.remove_tree(folder)
        if isinstance(observed, Evidence):
            return
        budget_ok = self._budgets(ctx, case, case_b, observed) if ref_b.ok else {}
        probe = C.IntegrityObservation(framework=sub.framework, on_gpu=ctx.device.has_gpu,
                                       case_label=case.label or case.id,
                        budget_ok=budget_ok,
                        public_seed=self._public_seed(ctx, case), input_specs=ref_a.meta.get("inputs", []),
                        submission_file=sub.submission_file, scan=self._scan(ctx), atol=ctx.tolerance()[0],
                        rtol=ctx.tolerance()[1], pristine=session.pristine_inputs(ref_a),
                        alarms=session.submission_alarms(), **observed)
        results = [C.check_library(probe), C.check_launches(probe), C.check_replay(probe),
                   C.check_special_casing(probe), C.check_constant(probe), C.check_mutation(probe),
                   C.check_output_type(probe), C.check_harness(probe, sub.reference_file),
                   C.check_deferred(probe), self._precision(ctx, case, ref_a, probe)]
        withheld = self._withheld(ctx, case, probe, results[0])
        if withheld is not None:
            results.append(withheld)
        atol, rtol = ctx.tolerance()
        config = {**env, "atol": atol, "rtol": rtol}
        for c in results:
            spans = [s for line in c.lines[:4] for s in ctx.submission_span(line)]
            ctx.add_evidence(self, outcome=c.outcome, summary=c.summary, check=f"{c.name}: {c.check}",
                             defect=c.defect, reason=c.reason, inputs=inputs, config=config, result=c.result,
                             spans=spans, rerun=rerun)

    def _observe(self, ctx: ToolContext, case: Case, ref_a: ReferenceRun, ref_b: ReferenceRun,
                 folder: Path) -> dict[str, Any] | Evidence:
        """Run both requests; the reference's outputs are loaded and deleted before the submission runs."""
        session = ctx.session
        inputs_b = ref_b.inputs_path if ref_b.ok else ref_a.inputs_path
        payload = {"case": case.model_dump(), "inputs_a": str(ref_a.inputs_path), "inputs_b": str(inputs_b)}
        out_a, out_b = folder / "ref-a.pt", folder / "ref-b.pt"
        ref = session.call("reference", "integrity_reference", {**payload, "out_a": str(out_a), "out_b": str(out_b)})
        try:
            expected_a = session.load_tensors(out_a) if ref.answered and ref.ok else None
            expected_b = session.load_tensors(out_b) if ref.answered and ref.ok and ref_b.ok else None
        finally:
            out_a.unlink(missing_ok=True)
            out_b.unlink(missing_ok=True)
        if expected_a is None:
            return ctx.add_evidence(self, outcome="unverified", defect="reference_failed", reason="reference failed",
                                    summary=f"tracing the reference failed: {ref.failure_text()[:300]}",
                                    check="trace the reference's forward", result=failure_details(ref),
                                    rerun=ctx.rerun(self.name, case))
        timeout = ctx.options.limits.call_timeout_s * 3
        run = session.call("submission", "integrity_probe", {**payload, "out_dir": str(folder)}, timeout=timeout)
        if not (run.answered and run.ok):
            c = classify_failure(run, interpreted=ctx.setup.interpreted, input_numel=input_elements(ref_a.meta),
                                 on_cpu=not ctx.device.has_gpu, stage="the integrity probe")
            tampering = c.defect == "harness_tampering"
            return ctx.add_evidence(self, outcome="fail" if tampering else "unverified", defect=c.defect,
                                    summary=c.reason, reason=None if tampering else c.reason,
                                    check="three calls of the submission under the integrity probe",
                                    result=failure_details(run), rerun=ctx.rerun(self.name, case))
        outputs: list[Any] = []
        for k in (1, 2, 3):
            outputs.append(self._load(session, folder / f"call-{k}.pt"))
        inputs_after = self._load(session, folder / "inputs-after-1.pt")
        # Rationale: the harness writes these files itself after each call that returned; one that does
        # not read back (a link, FIFO or folder the submission put under that name, a corrupt file) is
        # evidence withheld, and the checks that compare outputs would read its absence as a pass
        calls = (run.result or {}).get("calls") or []
        written = ["inputs-after-1.pt"] + [f"call-{k}.pt" for k, c in enumerate(calls[:3], start=1)
                                           if isinstance(c, dict) and not c.get("error") and not c.get("skipped")]
        unread = [n for n in written if (inputs_after if n == "inputs-after-1.pt"
                                         else outputs[int(n[5]) - 1]) is _UNREAD]
        if unread:
            return ctx.add_evidence(self, outcome="unverified", defect="probe_outputs_unreadable",
                                    reason="the probe's output files did not read back",
                                    summary=_UNREAD_TEXT.format(what="integrity probe", names=", ".join(unread)),
                                    check="three calls of the submission under the integrity probe",
                                    result={"unreadable": unread}, rerun=ctx.rerun(self.name, case))
        return {"ref": ref.result, "sub": run.result, "child": run.child, "expected_a": expected_a,
                "expected_b": expected_b,
                "outputs": [None if o is _UNREAD else o for o in outputs],
                "inputs_after": None if inputs_after is _UNREAD else inputs_after}

    # -- the core operators withheld ------------------------------------------------------------
    def _withheld(self, ctx: ToolContext, case: Case, probe: C.IntegrityObservation, library: C.Check) -> C.Check | None:
        """The probe's child, its last request: the submission bound once more and called on a third content
        with the reference's core operators withheld (tools/engine/harness/withheld_ops.py); the role is
        restarted after, so no later request reaches that child."""
        ops = C.withheld_candidates(probe, library)
        if not ops:
            return None
        families = C.core_families_of(library)
        session = ctx.session
        what = "forward with the reference's core operators withheld at the dispatcher"
        seed_c = ctx.seeds(1, "integrity-withheld")[0]
        case_c = second_content(case, seed_c, f"{case.label or case.id} (a third content)")
        ref_c = session.reference(case_c)
        if not ref_c.ok or ref_c.inputs_path is None:
            return C.Check("hidden_library_work", "unverified", f"the reference failed on a third content: "
                           f"{ref_c.call.failure_text()[:300]}", what, defect="reference_failed",
                           reason="reference failed")
        folder = ref_c.inputs_path.parent / f"withheld-{len(ctx.evidence)}"
        folder.mkdir(parents=True, exist_ok=True)
        try:
            run = session.call("submission", "integrity_withheld", {
                "case": case.model_dump(), "inputs": str(ref_c.inputs_path), "ops": ops,
                "families": families, "out_dir": str(folder)},
                timeout=ctx.options.limits.call_timeout_s * 2)
            out = self._load(session, folder / "withheld.pt") if run.answered and run.ok \
                and not (run.result or {}).get("error") else None
        finally:
            safe_files.remove_tree(folder)
            session.restart("submission")
        if not (run.answered and run.ok):
            return C.Check("hidden_library_work", "unverified", f"the run with {', '.join(ops)} withheld did not "
                           f"answer: {run.failure_text()[:300]}", what, defect="withheld_run_failed",
                           reason="the run with the operators withheld did not complete", result=failure_details(run))
        answer = run.result or {}
        if answer.get("error"):
            return C.check_withheld(ops, answer, None, False, case_c.label or case_c.id, families)
        if out is _UNREAD or out is None:
            return C.Check("hidden_library_work", "unverified",
                           _UNREAD_TEXT.format(what="withheld-operator run", names="withheld.pt"), what,
                           defect="probe_outputs_unreadable", reason="the run's output file did not read back")
        cmp, _, judged = judge_outputs(ctx, case_c, out, ref_c.outputs)  # correctness's own rule
        return C.check_withheld(ops, answer, cmp, judged.ok, case_c.label or case_c.id, families)

    # -- many calls ----------------------------------------------------------------------------
    def _many_calls(self, ctx: ToolContext, case: Case | None) -> None:
        """The many-calls probe (tools/integrity/many_calls.py). Its size is reduced, by counting
        work units, until the calls fit ``MANY_CALLS_UNITS`` x --budget; a probe that cannot run is
        ``unverified`` when the source writes state that survives a call, else ``info``."""
        scan = self._scan(ctx)
        state = scan.by_category("state")
        lines = sorted({f.line for f in state if f.file == ctx.submission.submission_file})
        # Rationale: an answer can depend on the calls before it only through state; where the static read
        # finds none (nor anything it cannot follow) a short run covers the pattern (tools/integrity/probe_size.py)
        keeps = self._keeps(ctx, scan)
        calls = M.MANY_CALLS if keeps else SHORT_CALLS
        check = f"many_calls: {calls} calls of one bound instance on a small input, every output vs the reference"
        cap = M.MANY_CALLS_UNITS * ctx.options.budget

        def not_run(why: str, defect: str = "many_calls_not_run") -> None:
            where = ("; the source writes state that survives a call (" + "; ".join(f.plain() for f in state[:2])
                     + "), so whether an answer depends on the call history is not known") if state else ""
            ctx.add_evidence(self, outcome="unverified" if state else "info", defect=defect if state else None,
                             reason=why if state else None, summary=f"many-calls probe not run: {why}{where}",
                             check=check, spans=[s for ln in lines[:4] for s in ctx.submission_span(ln)],
                             rerun=ctx.rerun(self.name, case) if case is not None else ctx.rerun(self.name))

        base = measure(ctx, "probes")
        if not base.ok:
            not_run("the nominal probe run failed")
            return
        if case is None:
            per_call = min(cap / M.MANY_CALLS, M.SMALL_CALL_UNITS)
            params = affordable_params(ctx, base, per_call - M.LOOP_CALL_UNITS + CALL_UNITS)
            seed = ctx.seeds(1, "integrity-many-calls")[0]
            params = {**params, "seed": seed} if "seed" in params else params
            sizes = ", ".join(f"{k}={v}" for k, v in sorted(params.items()) if k != "seed") or "nominal sizes"
            case = base.case.model_copy(update={"id": _MANY_CALLS_ID, "seed": seed, "params": params,
                                                "label": f"{sizes}, seed {seed}"})
        rerun = ctx.rerun(self.name, case)
        seed_b = ctx.seeds(1, "integrity-many-calls-second")[0]
        case_b = second_content(case, seed_b, case.label)
        ref_a, ref_b = ctx.session.reference(case), ctx.session.reference(case_b)
        if not (ref_a.ok and ref_b.ok):
            not_run(f"the reference failed on {case.label}", "reference_failed")
            return
        n = input_elements(ref_a.meta)
        nominal = size_knobs_of(ctx, dict(base.case.params))
        # the estimate affordable_params sized the case with (NominalRun.units: full programs grow)
        programs = base.programs * program_factor(n / max(base.elements, 1), knob_ratios(nominal, case.params)) \
            * base.fill()
        fresh_plan = M.schedule(min(M.FRESH_CALLS, calls))
        units = M.loop_units(programs, n, calls + len(fresh_plan))
        inputs = {"case": case.model_dump(), "second_seed": seed_b, "tensors": ref_a.meta.get("inputs", [])}
        # Rationale: the probe's size is counted, so its timeout only has to catch a hang; scaled from the
        # nominal call's time it cut a correct kernel's 320 calls at 66 s on a saturated machine (the
        # nominal call had been timed before the load began), which turned the item from info into
        # "did not complete". The review's own backstop (3 x --timeout) keeps it a function of the kernel.
        timeout = ctx.options.limits.call_timeout_s * 3
        pid = self._second_pid(ctx)
        config = {**ctx.environment(), "calls": calls, "fresh_calls": len(fresh_plan), "second_child_pid": pid,
                  "units": round(units, 1), "budget_units": cap,
                  "timeout_s": timeout, "sized_by": keeps[:4] or ["the static read finds no state kept between calls"]}
        if units > cap:
            not_run(f"{calls} calls on {case.label} count {units:.0f} work units, over the probe's "
                    f"{cap:.0f} (--budget raises it)", "over_budget")
            return
        plan = M.schedule(calls)
        assert ref_a.inputs_path is not None and ref_b.inputs_path is not None
        folder = ref_a.inputs_path.parent / f"many-calls-{len(ctx.evidence)}"
        session = ctx.session

        def part(schedule: list[tuple[int, str]], out: Path) -> tuple[Any, Any]:
            out.mkdir(parents=True, exist_ok=True)
            run = session.call("submission", "integrity_many_calls",
                               {"case": case.model_dump(), "inputs": [str(ref_a.inputs_path), str(ref_b.inputs_path)],
                                "schedule": [list(p) for p in schedule], "out_dir": str(out)}, timeout=timeout)
            return run, (self._load(session, out / "outputs.pt") if run.answered and run.ok else None)

        # Rationale: the first part in a fresh child (the calls counted are the probe's own: a rerun fails at
        # the same call); the whole schedule then in a second child, started ahead, whose pid was raised
        # before anything of the submission ran and which has been up since (issue 28, item 3): a kernel
        # right only while its pid is small, its calls few or its process young is right in the first and
        # wrong in the second. A fresh child after: the tools after this one inherit none of its calls.
        session.stand_by("submission", pid_target=pid)
        session.restart("submission")
        try:
            first, fresh_out = part(fresh_plan, folder / "fresh")
            run, outputs = first, fresh_out
            # Rationale: a fresh child whose submission reached for the harness (an alarm: integrity fails
            # on it, tools/engine/harness/alarm.py) answers nothing a second child's calls could be evidence
            # of; its part is judged alone. Decided by the probe's own child, so a rerun decides the same.
            reached = [a for a in session.alarms if a.get("child") == first.child]
            if reached:
                config["second_child"] = (f"not run: the submission reached for the harness in the fresh child "
                                          f"({reached[0].get('event')} at line {reached[0].get('line')})")
            if isinstance(fresh_out, list) and len(fresh_out) == len(fresh_plan) and not reached:
                session.restart("submission", pid_target=pid)
                run, outputs = part(plan, folder / "second")
                served = session.served_pid("submission")
                config["second_child_pid"] = served if served is not None else pid
        finally:
            safe_files.remove_tree(folder)
            session.restart("submission")
        if outputs is _UNREAD:
            ctx.add_evidence(self, outcome="unverified", defect="probe_outputs_unreadable",
                             reason="the probe's output file did not read back",
                             summary=_UNREAD_TEXT.format(what="many-calls probe", names="outputs.pt"), check=check,
                             inputs=inputs, config=config, result={"unreadable": ["outputs.pt"]}, rerun=rerun)
            return
        if outputs is None or not isinstance(outputs, list):
            c = classify_failure(run, interpreted=ctx.setup.interpreted, input_numel=n, on_cpu=not ctx.device.has_gpu,
                                 stage="the many-calls probe")
            tampering = c.defect == "harness_tampering"
            # Rationale: a slow probe is not a hang: its cost is counted, not measured, so a timeout
            # here is too slow to tell.
            ctx.add_evidence(self, outcome="fail" if tampering else ("unverified" if state else "info"),
                             defect=c.defect if (tampering or state) else None,
                             reason=None if tampering or not state else c.reason,
                             summary=f"the many-calls probe did not complete: {c.reason}", check=check,
                             inputs=inputs, config=config, result=failure_details(run), rerun=rerun)
            return
        atol, rtol = ctx.tolerance()
        if run is first:  # the fresh child's part ended early (a call raised) or reached for the harness: judged alone
            verdict = M.judge(outputs, [ref_a.outputs, ref_b.outputs], fresh_plan, (run.result or {}).get("error"),
                              atol, rtol, lines, case.label or case.id)
        else:
            verdict = M.judge(outputs, [ref_a.outputs, ref_b.outputs], plan, (run.result or {}).get("error"), atol,
                              rtol, lines, case.label or case.id,
                              fresh=(fresh_out, fresh_plan, (first.result or {}).get("error")),
                              pid=config["second_child_pid"])
        verdict.result["notes"] = [*((first.result or {}).get("notes", [])), *((run.result or {}).get("notes", []))][:5]
        if reached and verdict.outcome == "pass":
            # no pass for calls that were not made: the fresh child's calls matched, the rest was not run
            verdict = dataclasses.replace(verdict, outcome="info", summary=f"{verdict.summary}; the second child "
                                          f"{config['second_child']}")
        spans = [s for ln in verdict.lines[:4] for s in ctx.submission_span(ln)]
        ctx.add_evidence(self, outcome=verdict.outcome, summary=verdict.summary, check=check, defect=verdict.defect,
                         inputs=inputs, config=config, result=verdict.result, spans=spans, rerun=rerun,
                         duration_s=first.duration_s + (0.0 if run is first else run.duration_s))

    @staticmethod
    def _budgets(ctx: ToolContext, case: Case, case_b: Case, observed: dict[str, Any]) -> dict[int, bool]:
        """For each call outside the default tolerance: whether it is within the float64 error budget
        against the reference on its own inputs (calls 1 and 3 on the case, call 2 on the second)."""
        if ctx.tolerance() != (None, None):
            return {}  # a task's own tolerance is the task author's decision
        out: dict[int, bool] = {}
        outputs = observed["outputs"]
        for k, (c, expected) in enumerate(((case, observed["expected_a"]), (case_b, observed["expected_b"]),
                                           (case, observed["expected_a"]))):
            actual = outputs[k] if k < len(outputs) else None
            if actual is None or expected is None or compare_outputs(actual, expected).ok:
                continue
            budget = budget_for(ctx, c, actual, expected)
            out[k] = bool(budget.available and budget.ok)
        return out

    @staticmethod
    def _load(session: SandboxSession, path: Path) -> Any:
        """An output file in a transfer folder (a child can write there: a FIFO or a link where the file
        should be is refused, never opened by name), or ``_UNREAD`` (missing, not a regular file, corrupt)."""
        try:
            return session.load_tensors(path)
        except Exception:  # noqa: BLE001 - the caller decides what a file that does not read back means
            return _UNREAD

    @staticmethod
    def _scan(ctx: ToolContext) -> Scan:
        fact = ctx.facts.get(ScanFact)
        return fact.scan if fact is not None else scan_submission(ctx.submission, ctx.source)

    @staticmethod
    def _keeps(ctx: ToolContext, scan: Scan) -> list[str]:
        """What in the submission's own files could keep something between calls (empty: nothing found)."""
        files: dict[str, str | None] = {}
        for name in scan.files:
            try:
                files[name] = ctx.source.file(name)
            except (OSError, UnicodeDecodeError, ValueError):
                files[name] = None
        out = kept_by(files)
        if scan.parse_errors:
            out.append(f"{', '.join(scan.parse_errors[:2])} could not be parsed")
        return out

    @staticmethod
    def _public_seed(ctx: ToolContext, case: Case) -> bool:
        return any(nc.seed is not None and nc.seed == case.seed for nc in ctx.submission.nominal_cases)

    # -- precision -----------------------------------------------------------------------------
    def _precision(self, ctx: ToolContext, case: Case, ref_a: ReferenceRun, probe: C.IntegrityObservation) -> C.Check:
        name, what = "precision", "launch dtypes, casts and TF32 use vs the task's dtype, weighed by emulation"
        task = sorted(C.float_dtypes(probe.input_specs) | C.float_dtypes(probe.ref.get("outputs") or []))
        candidates = C.precision_candidates(probe)
        if not candidates:
            return C.Check(name, "pass", f"no computation below the task's precision ({'/'.join(task) or 'no float'} "
                           "data): launches received full-precision tensors, no TF32 or reduced-precision cast "
                           "in the source", what)
        atol, rtol = ctx.tolerance()
        verdicts = []
        for fmt in sorted({c["format"] for c in candidates}):
            rounded = case.model_copy(update={"id": f"{case.id}-round-{fmt}", "transforms": [
                *case.transforms, Transform(kind="round_to", args={"format": fmt})]})
            run = ctx.session.reference(rounded)
            if not run.ok:
                verdicts.append((fmt, None, f"the reference failed on inputs rounded to {fmt}"))
                continue
            cmp = compare_outputs(run.outputs, ref_a.outputs, atol=atol, rtol=rtol)
            worst = max((o.max_abs_err or 0.0) for o in cmp.outputs) if cmp.outputs else 0.0
            bad = sum(o.mismatches for o in cmp.outputs)
            total = sum(o.numel for o in cmp.outputs)
            tol = cmp.outputs[0] if cmp.outputs else None
            budget = f"atol={tol.atol:g}, rtol={tol.rtol:g}" if tol else "the tolerance"
            text = (f"rounding the inputs to {_FORMAT_WORDS[fmt]} moves the reference's own output by up to "
                    f"{worst:.3g} ({bad} of {total} elements outside {budget})")
            verdicts.append((fmt, cmp.ok, text))
        result = {"task_dtypes": task, "candidates": candidates,
                  "emulation": [{"format": f, "within_budget": ok, "text": t} for f, ok, t in verdicts]}
        lines = sorted({ln for c in candidates for ln in c["lines"] if ln})
        over = [(f, t) for f, ok, t in verdicts if ok is False]
        if over:
            fmt, text = over[0]
            cand = next(c for c in candidates if c["format"] == fmt)
            note = (" The CPU interpreter computes tl.dot in exact fp32, so correctness on this machine cannot "
                    "show it; on an NVIDIA GPU it would." if cand.get("default_dot") and not ctx.device.has_gpu
                    else "")
            return C.Check(name, "fail", f"precision downgrade: {cand['how']}. On the task's "
                           f"{'/'.join(task)} data, {text}: beyond the error budget.{note}", what,
                           defect="precision_downgrade", result=result, lines=lines)
        if any(ok is None for _, ok, _ in verdicts):
            return C.Check(name, "unverified", "; ".join(t for _, ok, t in verdicts if ok is None), what,
                           defect="precision_unweighed", reason="the emulation could not run", result=result)
        return C.Check(name, "pass", f"reduced precision found ({candidates[0]['how']}) but within the error "
                       f"budget: {verdicts[0][2]}", what, result=result, lines=lines)
