"""Running one case end to end and judging it: reference, submission, comparison, error budget.

Shared by the correctness, generality and numerics tools so that all three say "correct" the same
way (tools/engine/compare/judge.py). The float64 reference is run only when the verdict needs it, on
inputs generated from the same case and checked bit for bit against the submission's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tools.engine.tool import ToolContext, failure_details, user_frame_line
from tools.engine.cases import nominal_cases
from tools.engine.compare import ErrorBudget, bitwise_equal, compare_outputs, error_budget, needs_budget
import tools.engine.compare.judge as judge
from tools.engine.compare.budget import unavailable
from tools.engine.compare.compare import Comparison
from tools.engine.compare.judge import Judgement, Mode, RoundingBound
from tools.engine.compare.reference_exact import describe as describe_inexact
from tools.engine.compare.reference_exact import patch_inexact
import tools.engine.harness.tensors as tensors
from tools.engine.harness.case import Case
from tools.engine.outcomes import Classified, classify_failure, deliberate_rejection, input_elements
from tools.engine.session import ReferenceRun, SubmissionRun

Status = Literal["reference_failed", "rejected", "failed", "undecided", "wrong", "ok"]


def tolerance_config(ctx: ToolContext) -> dict[str, Any]:
    """The tolerance in force and where it comes from, for ``Evidence.config``."""
    sub = ctx.submission
    atol, rtol = ctx.tolerance()
    if (atol, rtol) == (None, None):
        source = "per-dtype defaults"
    elif (atol, rtol) == (sub.tolerance.atol, sub.tolerance.rtol) and sub.tolerance_source:
        source = sub.tolerance_source
    else:
        source = "--atol/--rtol"
    return {"atol": atol, "rtol": rtol, "tolerance_source": source}


def default_tolerance(ctx: ToolContext) -> bool:
    return ctx.tolerance() == (None, None)


@dataclass
class Evaluation:
    case: Case
    ref: ReferenceRun
    run: SubmissionRun | None = None
    classified: Classified | None = None
    rejection: str | None = None
    comparison: Comparison | None = None
    budget: ErrorBudget | None = None
    judgement: Judgement | None = None
    inexact_reference: list[dict[str, Any]] | None = None
    """Outputs where the reference was non-finite, float64 finite, and float64 judged."""

    @property
    def status(self) -> Status:
        if not self.ref.ok:
            return "reference_failed"
        if self.rejection is not None:
            return "rejected"
        if self.classified is not None:
            return "failed"
        assert self.judgement is not None
        if self.judgement.unverified is not None:
            return "undecided"
        return "ok" if self.judgement.ok else "wrong"

    @property
    def duration_s(self) -> float:
        return self.run.call.duration_s if self.run is not None else 0.0

    def inputs_record(self) -> dict[str, Any]:
        return {"case": self.case.model_dump(), "tensors": self.ref.meta.get("inputs", [])}

    def result_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"duration_s": round(self.duration_s, 3)}
        if self.run is not None and not self.run.ok:
            out.update(failure_details(self.run.call))
        if self.comparison is not None:
            out["comparison"] = self.comparison.model_dump()
        if self.budget is not None:
            out["error_budget"] = self.budget.model_dump()
        if self.judgement is not None:
            out["basis"] = self.judgement.basis
        if self.rejection is not None:
            out["rejection"] = self.rejection
        if self.inexact_reference:
            out["inexact_reference"] = self.inexact_reference
        return out

    def summary(self) -> str:
        """A one-line account of what happened (no verdict wording beyond the facts)."""
        if self.status == "reference_failed":
            return f"the reference fails on {self.case.label}: {self.ref.call.failure_text()[:200]}"
        if self.status == "rejected":
            return f"rejected {self.case.label} with its own error ({self.rejection})"
        if self.status == "failed":
            assert self.classified is not None
            return self.classified.reason
        assert self.judgement is not None
        return self.judgement.summary

    def short_summary(self) -> str:
        """Like ``summary`` but a wrong answer is only its comparison line (the budget stays in the
        result record)."""
        if self.status == "wrong" and self.comparison is not None and self.judgement is not None \
                and self.judgement.basis in ("tolerance", "structure", "nonfinite"):
            return self.comparison.reason
        return self.summary()

    def error_line(self, ctx: ToolContext) -> int | None:
        return user_frame_line(self.run.call, ctx.submission.submission_file) if self.run is not None else None


def exact_outputs(ctx: ToolContext, case: Case) -> tuple[Any, str]:
    """The reference's outputs computed in float64 on the case's inputs, or (None, why not)."""
    if case.dtype == "float64":
        return None, "the case already runs in float64"
    native = ctx.session.reference(case)
    wide = ctx.session.reference(case.model_copy(update={"reference_dtype": "float64"}))
    if not wide.ok:
        return None, f"the reference does not run in float64: {wide.call.failure_text()[:200]}"
    if native.inputs_path is None or wide.inputs_path is None:
        return None, "reference inputs missing"
    # the parent's own copies: the reference child can write in its transfer folder (a FIFO there)
    same = bitwise_equal(ctx.session.load_tensors(native.parent_inputs or native.inputs_path),
                         ctx.session.load_tensors(wide.parent_inputs or wide.inputs_path))
    if not same:
        return None, "the reference's input generator is not reproducible under a fixed seed"
    return wide.outputs, ""


def budget_for(ctx: ToolContext, case: Case, actual: Any, expected: Any) -> ErrorBudget:
    exact, why = exact_outputs(ctx, case)
    if exact is None:
        return unavailable(why)
    return error_budget(actual, expected, exact)


def judge_outputs(ctx: ToolContext, case: Case, actual: Any, expected: Any,
                  ) -> tuple[Comparison, ErrorBudget | None, Judgement]:
    """kreview's correctness judgement of ``actual`` against ``expected`` on ``case`` (a run under a
    sanitizer, the interpreter's outputs, a task-audit impostor): the task's or the per-dtype
    tolerance, and the float64 error budget where the comparison needs it."""
    atol, rtol = ctx.tolerance()
    dflt = default_tolerance(ctx)
    cmp = compare_outputs(actual, expected, atol=atol, rtol=rtol)
    budget = budget_for(ctx, case, actual, expected) if needs_budget(cmp, "correctness", dflt) else None
    j = judge(cmp, budget, mode="correctness", default_tolerance=dflt)
    if not j.ok and j.basis == "nonfinite":
        exact, _ = exact_outputs(ctx, case)
        again = _float64_judged(actual, expected, exact, "correctness", atol, rtol, dflt, True, budget)
        if again is not None:
            return again[0], again[1], again[2]
    return cmp, budget, j


def _timed_out(run: SubmissionRun) -> bool:
    return run.call.crash is not None and run.call.crash.kind == "timeout"


def evaluate(ctx: ToolContext, case: Case, *, mode: Mode = "correctness", instruments: list[str] | None = None,
             timeout: float | None = None, expected_s: float | None = None, allow_rejection: bool = False,
             keep_inputs_after: bool = False, nan_strict: bool = True, want_budget: bool = False,
             estimate_is_bound: bool = True, options: dict[str, dict[str, Any]] | None = None) -> Evaluation:
    """Run ``case`` on both sides and judge it. Never raises for the submission's behaviour.

    ``want_budget``: measure the error budget even when the verdict does not need it (so later
    tools can read it from the evidence)."""
    ref = ctx.session.reference(case)
    ev = Evaluation(case=case, ref=ref)
    if not ref.ok:
        return ev
    run = ctx.session.run_submission(case, ref, instruments=instruments, timeout=timeout,
                                     keep_inputs_after=keep_inputs_after, options=options)
    backstop = ctx.options.limits.call_timeout_s
    if _timed_out(run) and timeout is not None and timeout < backstop:
        # Rationale: ``timeout`` is scaled from a nominal call timed earlier; a machine that got busier
        # since (other reviews, a CI neighbour) can exceed it with a correct kernel. A timeout decides
        # nothing until the same call, in a fresh child, has also outrun the review's own backstop
        # (--timeout), so a hang verdict, or a cut configuration, does not depend on the load.
        run = ctx.session.run_submission(case, ref, instruments=instruments, timeout=backstop,
                                         keep_inputs_after=keep_inputs_after, options=options)
        timeout = backstop
    ev.run = run
    if not run.ok:
        sub = ctx.submission
        if allow_rejection and run.loaded:
            ev.rejection = deliberate_rejection(run.call, sub.submission_file, ctx.source.text)
            if ev.rejection is not None:
                return ev
        ev.classified = classify_failure(
            run.call, interpreted=ctx.setup.interpreted, input_numel=input_elements(ref.meta),
            on_cpu=not ctx.device.has_gpu, stage=f"the call on {case.label or case.id}",
            expected_s=expected_s, timeout_s=timeout if timeout is not None else ctx.options.limits.call_timeout_s,
            estimate_is_bound=estimate_is_bound)
        return ev
    atol, rtol = ctx.tolerance()
    dflt = default_tolerance(ctx)
    if not dflt and case.dtype is not None and case.dtype != ctx.submission.dtype \
            and _output_dtypes(ref.outputs) != _nominal_output_dtypes(ctx):
        # Rationale: a task's explicit tolerance was chosen for its own output dtype; a probe whose
        # outputs are in another dtype is judged by that dtype's defaults and the error budget, or 1 ULP
        # of fp16 "fails". A probe that only changes the input dtype (float16 inputs into a matmul
        # that still returns float32) keeps the task's tolerance.
        atol, rtol, dflt = None, None, True
    ev.comparison = compare_outputs(run.outputs, ref.outputs, atol=atol, rtol=rtol, nan_strict=nan_strict)
    if want_budget or needs_budget(ev.comparison, mode, dflt):
        ev.budget = budget_for(ctx, case, run.outputs, ref.outputs)
    bound = RoundingBound.of(ev.comparison, reduction_length(ref.meta.get("inputs", []), ref.outputs))
    ev.judgement = judge(ev.comparison, ev.budget, mode=mode, default_tolerance=dflt, bound=bound)
    if not ev.judgement.ok and ev.judgement.basis == "nonfinite":
        _judge_by_float64(ctx, ev, mode, atol, rtol, dflt, nan_strict)
    return ev


def _output_dtypes(outputs: Any) -> list[str]:
    leaves = tensors.flatten(outputs if isinstance(outputs, (list, tuple)) else [outputs])
    return [str(getattr(v, "dtype", type(v).__name__)) for _, v in leaves]


def _nominal_output_dtypes(ctx: ToolContext) -> list[str] | None:
    """The output dtypes of the reference on the first nominal case (the dtype the task's tolerance is
    for); None when it fails."""
    nominal = ctx.session.reference(nominal_cases(ctx, 1)[0])
    return _output_dtypes(nominal.outputs) if nominal.ok else None


def reduction_length(inputs: list[dict[str, Any]], outputs: Any) -> int:
    """The longest sum an output element can be, generously: the largest dimension of any input, or the
    input elements per output element (a full reduction to a scalar), whichever is larger."""
    shapes = [[int(d) for d in (i.get("shape") or [])] for i in inputs if isinstance(i, dict)]
    dims = [d for s in shapes for d in s]
    numel_in = max((_prod(s) for s in shapes), default=1)
    leaves = tensors.flatten(outputs if isinstance(outputs, (list, tuple)) else [outputs])
    numel_out = min((int(v.numel()) for _, v in leaves if hasattr(v, "numel") and v.numel()), default=1)
    return max(max(dims, default=1), numel_in // max(numel_out, 1), 1)


def _prod(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _judge_by_float64(ctx: ToolContext, ev: Evaluation, mode: Mode, atol: float | None, rtol: float | None,
                      dflt: bool, nan_strict: bool) -> None:
    """Where the reference is non-finite but float64 is not, float64 judges (tools/engine/compare/reference_exact.py);
    the judgement changes only when the submission then passes everywhere."""
    assert ev.run is not None
    exact, _ = exact_outputs(ctx, ev.case)
    again = _float64_judged(ev.run.outputs, ev.ref.outputs, exact, mode, atol, rtol, dflt, nan_strict, ev.budget)
    if again is None:
        return
    ev.comparison, ev.budget, ev.judgement, found = again
    ev.inexact_reference = [f.model_dump() for f in found]


def _float64_judged(actual: Any, expected: Any, exact: Any, mode: Mode, atol: float | None, rtol: float | None,
                    dflt: bool, nan_strict: bool, budget: ErrorBudget | None,
                    ) -> tuple[Comparison, ErrorBudget | None, Judgement, list[Any]] | None:
    """The comparison, budget and judgement of ``actual`` against ``expected`` with the reference's inexact
    non-finite positions replaced by float64's, or None when that changes nothing or the submission still
    fails.

    Rationale: the first comparison had NaN/inf mismatches, so it never asked for the error budget; once
    float64 fills those positions, a kernel nearer float64 than a reference that rounds its intermediates
    in fp16 can be outside the default tolerance elsewhere, and only the budget can tell (an fp16
    matmul-scale-bias-LeakyReLU under the NaN probe failed "expected -inf, got -166.5" without it)."""
    if exact is None:
        return None
    patched, found = patch_inexact(actual, expected, exact)
    if not found:
        return None
    cmp = compare_outputs(actual, patched, atol=atol, rtol=rtol, nan_strict=nan_strict)
    wanted = mode == "accuracy" or budget is not None or needs_budget(cmp, mode, dflt)
    budget = error_budget(actual, patched, exact) if wanted else None
    again = judge(cmp, budget, mode=mode, default_tolerance=dflt)
    if not again.ok:
        return None
    again = again.model_copy(update={"summary": f"{describe_inexact(found)}; {again.summary}"})
    return cmp, budget, again, found
