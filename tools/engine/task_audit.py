"""Auditing the task: can its own check tell a right kernel from a wrong one?

Two halves, both on the reference's own nominal case, with every reference run in the sandbox
(the reference is untrusted code too):
- impostors (``impostors``): outputs no correct kernel would return (zeros, a constant, an input
  passed through, another case's answer, the answer in bfloat16, the answer with a row dropped),
  each judged by the task's own check (``TaskCheck``) and by kreview's correctness judgement
  (tools/engine/compare/judge.py, the error budget where it decides);
- the reference's checks (tools/engine/harness/task_requests.py): determinism, mutation of its inputs,
  non-finite outputs, and whether the output moves beyond the task's tolerance when any input or
  parameter is perturbed by its own spread.
``findings`` turns both into ``TaskFinding``s (reviewer/core/task.py); docs/task-audit.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

import tools.engine.harness.tensors as tensors
from reviewer.core.task import ImpostorResult, TaskAudit, TaskFinding
from tools.engine.compare import bitwise_equal
from tools.engine.compare.compare import tolerance_for
from tools.engine.evaluate import judge_outputs
from tools.engine.formats import format_of
from tools.engine.harness.case import Case
from tools.engine.session import ReferenceRun
from tools.engine.task_findings import probe_findings
from tools.engine.tool import ToolContext


@dataclass(frozen=True)
class Verdict:
    ok: bool
    text: str
    basis: str = ""


class TaskCheck:
    """The check the task itself applies to an output, per format."""

    def __init__(self, ctx: ToolContext, case: Case, ref: ReferenceRun) -> None:
        self.ctx, self.case, self.ref = ctx, case, ref
        sub = ctx.submission
        self.own_tolerance = (sub.tolerance.atol, sub.tolerance.rtol) if sub.tolerance_source else None
        self.format = format_of(sub)
        own = self.format.own_check
        self.own_checker = own is not None and own in ctx.source.reference

    def tolerance(self, dtype: torch.dtype) -> tuple[float, float]:
        """(atol, rtol) of the task's check for outputs of ``dtype`` (also used by the reference probes)."""
        if self.own_tolerance is not None:
            atol, rtol = self.own_tolerance
            return tolerance_for(dtype, atol, rtol)
        rule = self.format.task_tolerance(_name(dtype))
        if rule is not None:
            return rule[0], rule[1]
        return tolerance_for(dtype)

    def describe(self, dtype: torch.dtype) -> str:
        atol, rtol = self.tolerance(dtype)
        if self.own_checker:
            return f"{self.ctx.submission.reference_file}: {self.format.own_check}(data, output)"
        if self.own_tolerance is not None:
            return f"allclose atol={atol:g}, rtol={rtol:g} ({self.ctx.submission.tolerance_source})"
        rule = self.format.task_tolerance(_name(dtype))
        if rule is not None:
            return rule[2]
        return f"allclose at the per-dtype defaults atol={atol:g}, rtol={rtol:g} (no task tolerance)"

    def __call__(self, candidate: Any, label: str) -> Verdict:
        if self.own_checker:
            return self._own_check(candidate, label)
        return self._allclose(candidate)

    def _allclose(self, candidate: Any) -> Verdict:
        exp, act = tensors.flatten(self.ref.outputs), tensors.flatten(candidate)
        if len(exp) != len(act):
            return Verdict(False, f"{len(act)} outputs, {len(exp)} expected")
        worst = []
        for (path, e), (_, a) in zip(exp, act):
            if not isinstance(e, torch.Tensor) or not isinstance(a, torch.Tensor) or a.shape != e.shape:
                return Verdict(False, f"output {path}: shape differs")
            atol, rtol = self.tolerance(e.dtype)
            ok = bool(torch.allclose(a.double(), e.double(), atol=atol, rtol=rtol))
            diff = float((a.double() - e.double()).abs().nan_to_num(nan=float("inf")).max()) if e.numel() else 0.0
            worst.append(f"output {path}: max |diff| {diff:.3g}, max |expected| {_abs_max(e):.3g} vs atol={atol:g}, "
                         f"rtol={rtol:g}")
            if not ok:
                return Verdict(False, worst[-1])
        return Verdict(True, "; ".join(worst))

    def _own_check(self, candidate: Any, label: str) -> Verdict:
        """The task's own checker (``SubmissionFormat.own_check``), run by the reference child."""
        assert self.ref.inputs_path is not None
        path = self.ref.inputs_path.parent / f"impostor-{label.replace(' ', '_')}.pt"
        tensors.save(candidate, str(path))
        try:
            call = self.ctx.session.call("reference", "check", {"case": self.case.model_dump(),
                                                                "inputs_path": str(self.ref.inputs_path),
                                                                "candidate_path": str(path)})
        finally:
            path.unlink(missing_ok=True)
        verdict = (call.result or {}).get("checker") if call.answered and call.ok else None
        if verdict is None:
            return Verdict(False, f"the task's checker did not answer: {call.failure_text()[:200]}")
        return Verdict(bool(verdict.get("ok")), str(verdict.get("message") or "accepted")[:300])


def _name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _abs_max(t: torch.Tensor) -> float:
    f = t.double()
    f = f[torch.isfinite(f)]
    return float(f.abs().max()) if f.numel() else 0.0


def _map(value: Any, fn: Callable[[torch.Tensor], torch.Tensor]) -> Any:
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, (list, tuple)):
        return [_map(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: _map(v, fn) for k, v in value.items()}
    return value


def _floating(t: torch.Tensor) -> bool:
    return t.is_floating_point()


def _mean_of(t: torch.Tensor) -> torch.Tensor:
    f = t.double()
    f = f[torch.isfinite(f)]
    return torch.full_like(t, float(f.mean()) if f.numel() else 0.0)


def _drop_row(t: torch.Tensor) -> torch.Tensor:
    out = t.clone()
    if t.dim() >= 2:
        out.reshape(-1, t.shape[-1])[-1] = 0
    elif t.numel():
        out[-max(1, t.numel() // 16):] = 0
    return out


def _other_case(case: Case, seed: int, suffix: str) -> Case:
    params = dict(case.params)
    if "seed" in params:
        params["seed"] = seed
    return case.model_copy(update={"id": f"{case.id}-{suffix}", "seed": seed, "params": params,
                                   "label": f"{case.label} (seed {seed})"})


def impostors(ctx: ToolContext, case: Case, ref: ReferenceRun, other_seed: int) -> list[tuple[str, Any]]:
    """Wrong answers, each labelled; only those the outputs' shapes and dtypes allow."""
    out = ref.outputs
    leaves = [t for _, t in tensors.flatten(out) if isinstance(t, torch.Tensor)]
    if not leaves or not all(_floating(t) for t in leaves):
        return []
    found: list[tuple[str, Any]] = [("zeros", _map(out, torch.zeros_like))]
    if any(t.numel() > 1 for t in leaves):  # the mean of a single value is that value
        found.append(("constant (the reference output's mean)", _map(out, _mean_of)))
    if len(leaves) == 1 and leaves[0].numel() > 1:  # a scalar equal to one input element proves nothing
        target = leaves[0]
        for path, x in tensors.flatten(ctx.session.pristine_inputs(ref)):
            if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel() == target.numel():
                found.append((f"input {path} passed through", [x.reshape(target.shape).to(target.dtype)]))
    stale = ctx.session.reference(_other_case(case, other_seed, "stale"))
    if stale.ok and [t.shape for _, t in tensors.flatten(stale.outputs)] == [t.shape for t in leaves]:
        # Rationale: inputs that do not change with the seed let a cached answer pass every seed; say so
        same = "; the inputs do not change with the seed" if bitwise_equal(stale.outputs, out) else ""
        found.append((f"the reference output of other inputs (seed {other_seed}{same})", stale.outputs))
    if all(t.dtype == torch.float32 for t in leaves):
        low = ctx.session.reference(case.model_copy(update={"id": f"{case.id}-bf16", "dtype": "bfloat16"}))
        # a format whose generator ignores the case's dtype (GPU MODE) computes the same bits: no impostor
        if low.ok and [t.shape for _, t in tensors.flatten(low.outputs)] == [t.shape for t in leaves] \
                and not bitwise_equal(low.outputs, out):
            found.append(("the reference computed in bfloat16", _map(low.outputs, lambda t: t.to(torch.float32))))
    if all(t.numel() > 1 for t in leaves):  # a scalar has no row to drop
        found.append(("the right output with its last row dropped (zeroed)", _map(out, _drop_row)))
    return found


def own_judgement(ctx: ToolContext, case: Case, ref: ReferenceRun, candidate: Any) -> Verdict:
    """kreview's correctness judgement of ``candidate`` as if a submission had returned it."""
    _, _, j = judge_outputs(ctx, case, candidate, ref.outputs)
    return Verdict(j.ok, j.summary[:300], j.basis)


def audit(ctx: ToolContext) -> TaskAudit:
    """Audit the task of ``ctx.submission`` on its first nominal case. Never raises for what the
    reference does: a reference that fails or hangs is a finding."""
    sub = ctx.submission
    nominal = sub.nominal_cases[0]
    seed, other = ctx.seeds(2, "task_audit")
    case = _other_case(Case(id="task-audit", seed=seed, params=dict(nominal.params), dtype=sub.dtype,
                            label=nominal.label or "nominal"), seed, "nominal")
    result = TaskAudit(path=str(sub.root), format=sub.format, case=case.model_dump(exclude_defaults=True))
    ref = ctx.session.reference(case)
    if not ref.ok:
        result.findings.append(_failed("the reference on its nominal inputs", ref.call))
        return result.finished()
    check = TaskCheck(ctx, case, ref)
    dtype = next((t.dtype for _, t in tensors.flatten(ref.outputs) if isinstance(t, torch.Tensor)), torch.float32)
    result.task_check = check.describe(dtype)
    for label, candidate in impostors(ctx, case, ref, other):
        task, own = check(candidate, label), own_judgement(ctx, case, ref, candidate)
        result.impostors.append(ImpostorResult(impostor=label, passes_task_check=task.ok, passes_own_check=own.ok,
                                               task_check=task.text, own_check=own.text, own_basis=own.basis))
    result.findings += impostor_findings(result)
    atol, rtol = check.tolerance(dtype)
    probe = ctx.session.reference_call("task_probe", ref, timeout=_probe_timeout(ctx, ref),
                                       atol=atol, rtol=rtol, seed=seed)
    if not (probe.answered and probe.ok):
        result.findings.append(_failed("the reference's probes (perturbed inputs and parameters)", probe, probes=True))
    else:
        result.findings += probe_findings(probe.result, atol, rtol)
    return result.finished()


def _probe_timeout(ctx: ToolContext, ref: ReferenceRun) -> float:
    """Rationale: the probes run the reference up to 50 times (twice, once per input, once per
    parameter); each may take ten times the nominal call measured here, and never less than one call
    limit in all; at most ten call limits, so a hang on perturbed inputs costs minutes, not hours."""
    limit = ctx.options.limits.call_timeout_s
    nominal = float(ref.meta.get("run_seconds") or 1.0)
    return min(limit * 10, max(limit, 50 * 10 * nominal + 30.0))


def _failed(what: str, call: Any, *, probes: bool = False) -> TaskFinding:
    """The reference failing on its nominal inputs makes the task unusable (degenerate); its probes
    failing after a nominal run succeeded leaves those traits unchecked, which is said, not judged."""
    hang = call.crash is not None and call.crash.kind == "timeout"
    kind = ("reference_probes_" if probes else "reference_") + ("hang" if hang else "failed")
    return TaskFinding(kind=kind, degenerate=not probes,
                       detail=f"{what} {'did not finish' if hang else 'failed'}: {call.failure_text()[:300]}",
                       covered_by=("unchecked: determinism, mutation and sensitivity of this task" if probes else
                                   "none: without a reference answer no kernel can be judged"))


def impostor_findings(result: TaskAudit) -> list[TaskFinding]:
    out = []
    for imp in result.impostors:
        if not (imp.passes_task_check or imp.passes_own_check):
            continue
        own = ("kreview's own judgement accepts it too, so a correctness pass cannot rest on that check alone"
               if imp.passes_own_check else f"kreview's own judgement rejects it ({imp.own_check})")
        out.append(TaskFinding(
            kind="impostor_accepted", impostor=imp.impostor, passes_task_check=imp.passes_task_check,
            # the task is degenerate when its own check is fooled; kreview's alone is kreview's gap
            passes_own_check=imp.passes_own_check, degenerate=imp.passes_task_check,
            detail=(f"{imp.impostor}: the task's check ({result.task_check}) "
                    f"{'accepts' if imp.passes_task_check else 'rejects'} it ({imp.task_check}); {own}"),
            covered_by="none" if imp.passes_own_check else "correctness (kreview's own judgement)",
            numbers={"task_check": imp.task_check, "own_check": imp.own_check, "own_basis": imp.own_basis}))
    return out
