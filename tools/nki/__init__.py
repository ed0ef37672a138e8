"""nki: NKI-specific evidence. Static checks of the kernels' syntax tree, then one run of the nominal
case under the ``nki`` instrument: toolchain rule violations (with the message a user of the real
toolchain sees, where documented), undefined values reaching outputs, unwritten output elements,
affine-loop and SPMD hazards, SBUF/PSUM peaks, and whether an NKI kernel ran at all.

Every item names what produced it: the reviewer's interpreter (NKI 2.25.0 semantics) or the Neuron
SDK's simulator/hardware when the SDK is importable (then only the run outcome is reported here;
the interpreter-only checks are not claimed).
"""

from __future__ import annotations

from tools.engine.results import FailureDetails
from tools.engine.tool import Tool, ToolContext, failure_details
from tools.engine.cases import nominal_cases
from tools.engine.harness.case import Case
import tools.nki.evidence as E
import tools.nki.report as R


class NkiTool(Tool):
    name = "nki"
    result_model = FailureDetails
    criteria = ("builds", "correctness", "resources", "integrity", "performance", "generality")
    after = ("builds",)
    description = "NKI: static kernel checks and an instrumented run under the NKI interpreter (or the Neuron SDK)"
    frameworks = ("nki",)

    def run(self, ctx: ToolContext) -> None:
        from tools.nki.static import check_source

        findings = check_source(ctx.source.text, ctx.submission.submission_file)
        report = None
        if ctx.submission.syntax_error is None and ctx.setup.can_run:
            report = self._dynamic(ctx, nominal_cases(ctx, 1, purpose="nki")[0])
        E.static_items(self, ctx, findings, report)

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        self._dynamic(ctx, case)

    def _dynamic(self, ctx: ToolContext, case: Case) -> R.NkiReport | None:
        ref = ctx.session.reference(case)
        env = ctx.environment()
        common = {"inputs": {"case": case.model_dump(), "tensors": ref.meta.get("inputs", [])},
                  "config": {**env, "simulator": ctx.setup.note}, "rerun": ctx.rerun(self.name, case)}
        if not ref.ok:
            ctx.add_evidence(self, criteria=["builds"], outcome="unverified", defect="reference_failed",
                             summary=f"the reference failed on {case.label}; nothing to run the kernel on",
                             reason="reference failed", result=failure_details(ref.call), **common)
            return None
        run = ctx.session.run_submission(case, ref, instruments=["nki"])
        report = R.from_call(run.call, run.meta if run.ok else None)
        if report is None:
            if not run.ok:
                return None  # no NKI report: the failure is the builds tool's to report
            ctx.add_evidence(self, criteria=["builds"], outcome="unverified", defect="no_report",
                             summary="the nki instrument returned no report", reason="no instrument report",
                             **common)
            return None
        if report.backend != "interpreter":
            ctx.add_evidence(self, criteria=["builds"], outcome="info", defect=None,
                             summary=f"kernels ran under {ctx.setup.note}; the interpreter-only checks "
                                     "(undefined data, affine hazards, SBUF/PSUM peaks) were not run",
                             check="backend selection", result={"backend": report.backend}, **common)
            return report
        if report.error is not None:
            E.violation_item(self, ctx, report, common)
            E.recorded_items(self, ctx, report, common)
            return report
        if not report.launches:
            ctx.add_evidence(self, criteria=["integrity", "builds"], outcome="fail", defect="no_nki_kernel",
                             summary="the submission's call ran no @nki.jit kernel: its outputs were computed some "
                                     f"other way ({report.label})",
                             check="count NKI kernel launches during the call", result={"ops": report.ops}, **common)
            return report
        failed = E.recorded_items(self, ctx, report, common)
        E.work_item(self, ctx, report, ref.outputs, ctx.session.pristine_inputs(ref), common)
        ctx.add_evidence(self, criteria=["integrity"], outcome="info",
                         summary=f"{len(report.launches)} NKI kernel launch(es) during the call "
                                 f"({', '.join(sorted({l.get('kernel', '?') for l in report.launches}))}; "
                                 f"{report.label})",
                         check="count NKI kernel launches during the call",
                         result={"launches": report.launches[:8]}, **common)
        E.clean_items(self, ctx, report, failed, common)
        E.loop_hints(self, ctx, report, common)
        return report
