"""lowering: compile the submission's kernels for their real targets without a device.

Uses the framework backend's ``lower`` hook (Pallas: ``jax.export`` for TPU/Mosaic, CUDA/Triton and
Mosaic GPU; CUDA C: ``nvcc -ptx``). Criterion: ``builds``. Rationale for that choice: a kernel that
its own target's compiler rejects (a TPU block shape that breaks the 8x128 tiling, a Triton block
that is not a power of two, a CUDA syntax error) does not build for the hardware it is written for,
even when an interpreter runs it; ``resources`` is about the limits of kernels that do compile.

Outcomes: a rejection by a target the kernel is written for fails; by another target it is
information plus a warning finding; ``unsupported`` (the target cannot express the kernel) is
information; a compiler that could not run is unverified for an intended target. The backend's
``static_findings`` (source-only observations) are reported here as findings.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.engine.background import Background
from tools.engine.results import FailureDetails
from tools.engine.registry import backend_for
from tools.engine.backends.base import Backend, Lowered
from tools.engine.sandbox.safe_files import plain_name
from tools.engine.tool import Tool, ToolContext


@dataclass(frozen=True)
class _LoweringApart:
    """The backend's ``lower`` started at the plan (``LoweringTool.start_apart``)."""
    job: Background[list[Lowered] | None]


class LoweringTool(Tool):
    name = "lowering"
    result_model = FailureDetails
    criteria = ("builds",)
    description = "compile/lower every kernel for its real targets without a device; keep the IR"

    def applies(self, ctx: ToolContext) -> str | None:
        backend = backend_for(ctx.submission.framework)
        if not backend.supports_static_compile or type(backend).lower is Backend.lower:
            return f"the {backend.name} backend has no lower hook"
        if ctx.submission.syntax_error is not None:
            return "the submission does not parse (see builds)"
        return None

    # Rationale: nvcc -ptx of a load_inline source with PyTorch's headers took 28 s of a 37 s CUDA review on
    # 2 cores; it needs nothing of a run, so it runs beside the tools before this one (on a GPU, beside the
    # extension's own build in the builds tool).
    def start_apart(self, ctx: ToolContext) -> None:
        backend = backend_for(ctx.submission.framework)
        if backend.lowers_apart:
            ctx.facts.put(_LoweringApart(ctx.start_background(lambda stopping: backend.lower(ctx), name="lowering")))

    def run(self, ctx: ToolContext) -> None:
        try:
            self._run(ctx)
        finally:
            apart = ctx.facts.get(_LoweringApart)
            if apart is not None:
                apart.job.stop()  # not taken (the tool raised first): it ends with the tool

    def _run(self, ctx: ToolContext) -> None:
        backend = backend_for(ctx.submission.framework)
        for f in backend.static_findings(ctx.submission):
            ctx.add_finding(category=f.category, severity=f.severity, message=f.message,
                            spans=ctx.submission_span(f.line))
        apart = ctx.facts.get(_LoweringApart)
        results = apart.job.result() if apart is not None else backend.lower(ctx)
        if results is None:
            ctx.add_evidence(self, outcome="info", summary=f"the {backend.name} backend has no lowering hook",
                             check="static compile", rerun=ctx.rerun(self.name))
            return
        # Rationale: a kernel meant for either of two targets (no compiler params, no declared target)
        # builds if one of them accepts it; the other's rejection is then a portability warning.
        lowered_somewhere = {r.kernel for r in results if r.status == "ok" and r.intended}
        for res in results:
            self._record(ctx, res, decisive=res.intended and res.kernel not in lowered_somewhere)

    def _record(self, ctx: ToolContext, res: Lowered, decisive: bool) -> None:
        title = res.details.get("target_title") or res.target
        folder = ctx.artifact_dir(self.name)
        paths = []
        for fname, text in res.artifacts.items():
            if text:
                path = folder / plain_name(fname)
                path.write_text(text)
                paths.append(str(path.relative_to(ctx.run_dir)))
        spans = ctx.submission_span(res.line) if res.file in (None, ctx.submission.submission_file) else []
        common = {"check": f"lower {res.kernel} for {title} without a device", "artifacts": paths,
                  "result": {"status": res.status, "rule": res.rule, "message": res.message[:3000],
                             "intended_target": res.intended, **res.details},
                  "config": {"target": res.target}, "rerun": ctx.rerun(self.name), "duration_s": res.seconds,
                  "spans": spans}
        what = f"{res.kernel} for {title}"
        if res.status == "ok":
            ctx.add_evidence(self, outcome="pass" if res.intended else "info",
                             summary=f"{what}: lowers{' (a target it is written for)' if res.intended else ''}",
                             **common)
        elif res.status == "rejected":
            first = res.message.strip().splitlines()[0][:300] if res.message.strip() else "no message"
            ctx.add_evidence(self, outcome="fail" if decisive else "info", defect=res.rule or "lowering_rejected",
                             summary=f"{what}: rejected by the compiler ({res.rule}): {first}", **common)
            ctx.add_finding(category=f"lowering_{res.rule or 'rejected'}", severity="error" if decisive else "warning",
                            message=f"{what} does not compile: {first}", spans=spans)
        elif res.status == "unsupported":
            ctx.add_evidence(self, outcome="info",
                             summary=f"{what}: this target cannot express the kernel ({res.message[:200]})", **common)
        else:
            ctx.add_evidence(self, outcome="unverified" if res.intended else "info", defect="compiler_unavailable",
                             reason=res.message[:300], summary=f"{what}: not compiled: {res.message[:300]}", **common)
