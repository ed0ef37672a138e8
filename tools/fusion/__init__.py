"""fusion: tell a fused kernel that rounds its intermediates differently from one that computes a
different function.

On the nominal case the reference (the unfused chain) is evaluated three ways on the same inputs:

- at the task's precision, as written: every operator rounds its result to the task dtype (``native``);
- with every stage in float32, rounded to the task dtype once at the end (``fp32_chain``): what a fused
  kernel that keeps its intermediates in registers computes;
- in float64 (``exact``), the judge.

The kernel's output is placed against them: matching ``native`` means it rounds the intermediates
like the unfused chain; matching ``fp32_chain`` means it keeps them in float32; within the spread of the
two chains' own errors against float64 means the same function rounded its own way; beyond
``DIFFERENT_FACTOR`` times the worse chain means a different function. Only for half-precision tasks
(for float32 the two chains coincide). Evidence is ``info``, also when the check cannot run (a
reference that does not accept widened inputs, a failing submission: other tools report those), so it
never changes a verdict: correctness and numerics decide them.
"""

from __future__ import annotations

from typing import Any

import torch

from tools.engine.tool import Tool, ToolContext
from tools.engine.cases import nominal_cases
from tools.engine.harness.case import Case
from tools.engine.harness.tensors import flatten

HALF = ("float16", "bfloat16")
# Rationale: two chains that differ only in where they round land within a few units of the task's
# precision of each other; a kernel more than this many times farther from float64 than the worse of
# them is not explained by rounding.
DIFFERENT_FACTOR = 8.0


def _floats(value: Any) -> list[tuple[str, torch.Tensor]]:
    return [(p, t) for p, t in flatten(value) if isinstance(t, torch.Tensor) and t.is_floating_point()]


def _dist(a: torch.Tensor, b: torch.Tensor) -> float:
    d = (a.double() - b.double()).abs()
    d = d[torch.isfinite(d)]
    return float(d.max()) if d.numel() else 0.0


def place(kernel: Any, native: Any, fp32_chain: Any, exact: Any) -> dict[str, Any]:
    """Where the kernel's outputs sit among the three evaluations of the chain (per output)."""
    outs = []
    for (path, k), (_, n), (_, f), (_, x) in zip(_floats(kernel), _floats(native), _floats(fp32_chain),
                                                  _floats(exact)):
        f = f.to(n.dtype)  # the float32 chain, rounded once to the task dtype
        e_k, e_n, e_f = _dist(k, x), _dist(n, x), _dist(f, x)
        to_n, to_f = _dist(k, n), _dist(k, f)
        spread = _dist(n, f)
        if spread == 0.0:
            verdict = "rounding_irrelevant"
        elif to_n == 0.0 or (to_n < to_f and to_n <= spread / 4):
            verdict = "rounds_like_unfused_chain"
        elif to_f == 0.0 or (to_f < to_n and to_f <= spread / 4):
            verdict = "fp32_intermediates"
        elif e_k <= DIFFERENT_FACTOR * max(e_n, e_f):
            verdict = "own_rounding"
        else:
            verdict = "different_function"
        outs.append({"path": path, "verdict": verdict, "err_kernel_vs_float64": e_k,
                     "err_native_vs_float64": e_n, "err_fp32_chain_vs_float64": e_f,
                     "dist_to_native": to_n, "dist_to_fp32_chain": to_f, "native_vs_fp32_chain": spread})
    return {"outputs": outs}


_WORDS = {
    "rounding_irrelevant": "where the chain rounds does not change the result on this case",
    "rounds_like_unfused_chain": "it rounds the intermediates to the task's precision like the unfused chain",
    "fp32_intermediates": "it keeps the intermediates in float32 and rounds once (a faithful fusion)",
    "own_rounding": "the same function, rounded in its own way (between or near the two chains)",
    "different_function": "farther from float64 than any rounding of the chain explains: a different function",
}


class FusionTool(Tool):
    name = "fusion"
    criteria = ("numerics",)
    after = ("correctness",)
    description = "kernel vs the reference chain at task precision, with fp32 stages, and in float64"

    def applies(self, ctx: ToolContext) -> str | None:
        sub = ctx.submission
        if sub.syntax_error is not None:
            return "the submission does not parse"
        return None

    def run(self, ctx: ToolContext) -> None:
        # the first correctness case: its reference (and float64 reference) runs are already cached
        self.rerun_case(ctx, nominal_cases(ctx, 1, "correctness")[0])

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        rerun = ctx.rerun(self.name, case)
        native = ctx.session.reference(case)
        if not native.ok:
            ctx.add_evidence(self, outcome="info", defect="reference_failed",
                             summary="fusion check not run: the reference failed", check="reference", rerun=rerun)
            return
        dtypes = {str(t.dtype).removeprefix("torch.") for _, t in _floats(native.outputs)}
        if not dtypes & set(HALF):
            ctx.add_evidence(self, outcome="info", summary=f"fusion check not applicable: outputs are "
                             f"{', '.join(sorted(dtypes)) or 'not floating'}, so rounding the intermediates to the "
                             f"task's precision and keeping them in float32 are the same chain",
                             check="output dtypes", rerun=rerun)
            return
        wide32 = ctx.session.reference(case.model_copy(update={"reference_dtype": "float32"}))
        wide64 = ctx.session.reference(case.model_copy(update={"reference_dtype": "float64"}))
        if not (wide32.ok and wide64.ok):
            bad = wide32 if not wide32.ok else wide64
            why = bad.call.failure_text()[:300]
            ctx.add_evidence(self, outcome="info", defect="reference_not_widenable",
                             summary=f"fusion check not run: the reference does not run on widened inputs ({why})",
                             check="reference in float32 and float64", rerun=rerun)
            return
        run = ctx.session.run_submission(case, native)
        if not run.ok:
            ctx.add_evidence(self, outcome="info", defect="submission_failed",
                             summary="fusion check not run: the submission failed on the nominal case",
                             check="run the submission", rerun=rerun)
            return
        placed = place(run.outputs, native.outputs, wide32.outputs, wide64.outputs)
        if not placed["outputs"]:
            ctx.add_evidence(self, outcome="info", summary="fusion check: no floating output to place",
                             check="compare outputs", rerun=rerun)
            return
        parts = [f"output {o['path']}: {_WORDS[o['verdict']]} (error vs float64 {o['err_kernel_vs_float64']:.3g}; "
                 f"unfused chain {o['err_native_vs_float64']:.3g}, fp32 chain {o['err_fp32_chain_vs_float64']:.3g})"
                 for o in placed["outputs"]]
        ev = ctx.add_evidence(self, outcome="info", summary="; ".join(parts), check="the kernel against the "
                              "reference chain at task precision, with float32 stages, and in float64",
                              inputs={"case": case.model_dump()}, result=placed, rerun=rerun)
        for o in placed["outputs"]:
            if o["verdict"] == "different_function":
                ctx.add_finding(origin="tool", category="fusion:different_function", severity="warning",
                                message=f"output {o['path']}: {_WORDS[o['verdict']]}", confirmed_by=[ev.id])
            elif o["verdict"] == "rounds_like_unfused_chain":
                ctx.add_finding(origin="tool", category="fusion:rounded_intermediate", severity="info",
                                message=f"output {o['path']}: {_WORDS[o['verdict']]}; keeping them in float32 would "
                                        f"bring the error vs float64 from {o['err_kernel_vs_float64']:.3g} to about "
                                        f"{o['err_fp32_chain_vs_float64']:.3g}", confirmed_by=[ev.id])
