"""memcheck: the submission's Triton kernels run under the CPU sanitizer (out-of-bounds loads,
stores and atomics against each launch's argument storages, ``tl.device_assert``, int32 index
wrap) on the nominal case(s) and on a few boundary shapes that are not block multiples.

The sanitizer runs in the sandbox child (instrument ``triton_sanitizer``); this parent side plans
the cases, checks that the interpreter internals it hooks are where it expects them, and turns the
reports into evidence: findings on nominal inputs bear on ``correctness``, findings seen only on
boundary shapes on ``generality``. See docs/triton-sanitizer.md.
"""

from __future__ import annotations

from tools.engine.results import FailureDetails
from tools.engine.registry import backend_for
from tools.engine.runsetup import DeviceInfo, RunSetup
from tools.engine.tool import Tool, ToolContext
from tools.engine.cases import nominal_cases
from tools.engine.facts import BuildOutcome, NominalChecks
from tools.engine.harness.case import Case
from tools.memcheck.cases import block_sizes, boundary_cases, is_nominal
from tools.memcheck.evidence import emit_case, emit_violations
from tools.memcheck.devices import compare_verdicts
from tools.memcheck.sanitized_runs import CaseRun, run_case
from tools.engine.evaluate import judge_outputs
from tools.engine.session import SandboxSession

_INTERPRET = ("TRITON_INTERPRET", "1")
# Rationale: a first call that raised or died may be an out-of-bounds store corrupting memory;
# the sanitized run is what explains it. Import errors, hangs and missing devices it cannot help.
_CALL_FAILURES = {"exception", "crash", "process_exit"}


class MemcheckTool(Tool):
    name = "memcheck"
    result_model = FailureDetails
    criteria = ("correctness", "generality")
    after = ("builds",)
    fresh_submission_child = True
    description = "Triton kernels under the CPU sanitizer on nominal and boundary shapes"
    frameworks = ("triton",)
    mixed = True

    def applies(self, ctx: ToolContext) -> str | None:
        if not ctx.setup.can_run:
            return ctx.setup.why_not
        return None

    # Rationale: the spare the sanitized runs restart into starts once the generality search ends, on the
    # core the chain of single calls after it leaves idle, not beside the search, which keeps both busy
    # (issue 34); it is up long before this tool, which runs last.
    ahead_after = "generality"

    def prepare(self, ctx: ToolContext) -> None:
        # a spare only where the sanitized runs use the review's own child; where the search runs, ``ahead``
        # starts it when the search ends
        if self._review_child(ctx) and self.ahead_after not in ctx.plan.tools:
            super().prepare(ctx)

    def ahead(self, ctx: ToolContext) -> None:
        if self._review_child(ctx):
            super().prepare(ctx)

    def run(self, ctx: ToolContext) -> None:
        built = ctx.facts.get(BuildOutcome)
        blocked = built is not None and (not built.finished or any(
            e.outcome in ("fail", "unverified") and e.defect not in _CALL_FAILURES for e in built.items))
        if blocked:
            return  # nothing to sanitize: it does not import, or cannot run here, or hangs
        if self._incompatible(ctx, None):
            return
        session, own = self._session(ctx)
        try:
            nominal = nominal_cases(ctx, 1, self.name)
            runs = [run_case(session, case, nominal=True, keep_outputs=ctx.device.has_gpu) for case in nominal]
            first = next((r for r in runs if r.status != "reference_failed"), None)
            blocks = block_sizes(ctx.source.text, first.launches if first else None)
            for case in boundary_cases(ctx.submission, nominal, first.numel if first else 0, blocks,
                                       ctx.seeds(1, f"{self.name}-boundary")[0]):
                runs.append(run_case(session, case, nominal=False))
            self._emit(ctx, runs)
            if ctx.device.has_gpu and runs and runs[0].outputs is not None:
                self._compare_devices(ctx, runs[0])
        finally:
            if own:
                session.close()

    def _compare_devices(self, ctx: ToolContext, run: CaseRun) -> None:
        """The interpreter's outputs on the first nominal case against the GPU's correctness verdict."""
        nominal = ctx.facts.get(NominalChecks)
        if nominal is None or not nominal.checks:
            return
        cmp, _, verdict = judge_outputs(ctx, run.case, run.outputs, run.expected)
        atol, rtol = ctx.tolerance()
        found = compare_verdicts(ctx.device.name, nominal.failed, verdict.ok, verdict.summary, run.case.label)
        if found is None:
            return
        ctx.add_evidence(self, criteria=("correctness",), outcome="info", defect="device_divergence",
                         summary=found.summary[:600], check="the compiled kernel on the GPU vs the Triton interpreter",
                         result={"gpu": found.gpu, "interpreter": found.interpreter, "usual_causes": list(found.causes),
                                 "comparison": cmp.model_dump()},
                         config={**ctx.environment(), "atol": atol, "rtol": rtol},
                         rerun=ctx.rerun(self.name, run.case))

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        if self._incompatible(ctx, case):
            return
        session, own = self._session(ctx)
        try:
            self._emit(ctx, [run_case(session, case, nominal=is_nominal(ctx.submission, case))])
        finally:
            if own:
                session.close()

    def _emit(self, ctx: ToolContext, runs: list[CaseRun]) -> None:
        emit_violations(ctx, self, runs)
        for run in runs:
            emit_case(ctx, self, run)

    def _incompatible(self, ctx: ToolContext, case: Case | None) -> bool:
        """Check the hooked internals in this process too (no submission code involved), so an
        incompatible Triton is reported once and clearly, before any child starts."""
        from reviewer.core.errors import SanitizerIncompatible
        from tools.engine.harness.sanitizer.compat import require_compatible

        try:
            require_compatible()
        except SanitizerIncompatible as exc:
            # Rationale: on a GPU compute-sanitizer checks the compiled kernels' memory accesses
            # (tools/sanitizers); the CPU sanitizer's absence then leaves no check undone.
            covered = any(m.available and m.name == "memcheck"
                          for m in backend_for(ctx.submission.framework).check_modes(ctx))
            note = "; compute-sanitizer --tool memcheck checks the compiled kernels on the GPU" if covered else ""
            ctx.add_evidence(self, outcome="info" if covered else "unverified", defect="sanitizer_incompatible",
                             reason=exc.message,
                             summary=f"not checked: {exc.message}{note}"[:500], config=ctx.environment(),
                             check="verify the Triton interpreter internals the sanitizer hooks",
                             rerun=ctx.rerun(self.name, case))
            return True
        return False

    @staticmethod
    def _review_child(ctx: ToolContext) -> bool:
        """Whether the sanitized runs use the review's own submission child: its children already run the
        interpreter (no GPU), so ``_session`` restarts that child instead of starting a session of its own."""
        return ctx.setup.interpreted and _INTERPRET in ctx.setup.env

    @staticmethod
    def _session(ctx: ToolContext) -> tuple[SandboxSession, bool]:
        """The review's session when its children already run the interpreter, else a private one
        with ``TRITON_INTERPRET=1`` (on a GPU machine the reviewer's children run compiled kernels)."""
        if MemcheckTool._review_child(ctx):
            # Rationale: an earlier unsanitized call may have corrupted the shared child's heap
            # without killing it; the sanitized runs start from a fresh submission child.
            ctx.session.restart("submission")
            return ctx.session, False
        # Rationale: the interpreter runs on the CPU as on a machine without a GPU (the same shims and
        # virtual device), so the sanitizer's findings are the same on both; its children get no GPU.
        cpu = DeviceInfo(kind="cpu", name="cpu (the Triton sanitizer runs the interpreter)")
        cpu_setup = backend_for(ctx.submission.framework).run_setup(cpu)
        env = tuple(kv for kv in cpu_setup.env if kv[0] != _INTERPRET[0]) + (_INTERPRET,)
        setup = RunSetup(can_run=True, env=env, preludes=cpu_setup.preludes, interpreted=True,
                         note="Triton interpreter (TRITON_INTERPRET=1) for the sanitizer")
        session = SandboxSession(ctx.submission, limits=ctx.options.limits, device=cpu, setup=setup,
                                 keep_logs_in=ctx.run_dir / "artifacts" / "memcheck-sandbox")
        return session, True
