"""integrity_static: reward hacks visible in the submission's source, with the lines quoted."""

from __future__ import annotations

from dataclasses import asdict

from reviewer.core.models import SourceSpan
from tools.engine.tool import Tool, ToolContext
from tools.integrity.static_scan import Scan, ScanFact, ScanHit, scan_submission

# category -> what the check looked for (shown as the evidence's ``check``)
CATEGORIES = {
    "reference_reuse": "imports of the reference, inheriting its Model, calling or compiling it",
    "harness": "monkeypatching, stack/gc introspection, raw fds, grader files, RNG seed, process control",
    "caching": "lookups keyed on id(), data_ptr() or a hash of tensor contents",
    "deferred": "threads, processes, async tasks, exit hooks, finalizers, side streams, CUDA graphs",
    "environment": "reads of the process environment",
    "library": "calls to the reference's own operators outside kernel bodies (judged at run time)",
    "precision": "TF32, fp16/bf16/fp8 casts, autocast (weighed at run time against the error budget)",
    "state": "module-level, class or instance state written by the call path: counters, caches, global "
             "assignments, lru_cache (settled at run time by the many-calls probe)",
}
_MAX_SHOWN = 3


def _span(f: ScanHit) -> SourceSpan:
    return SourceSpan(file=f.file, start_line=f.line, end_line=f.end_line, quote=f.quote)


class IntegrityStaticTool(Tool):
    name = "integrity_static"
    criteria = ("integrity",)
    leaves = (ScanFact,)
    description = "read the submission's source for reward hacks (nothing run)"

    def run(self, ctx: ToolContext) -> None:
        sub = ctx.submission
        rerun = ctx.rerun(self.name)
        if sub.syntax_error is not None:
            ctx.add_evidence(self, outcome="unverified", defect="syntax_error", reason="the source does not parse",
                             summary=f"{sub.submission_file} does not parse; its source could not be scanned",
                             check="static scan of the submission", rerun=rerun)
            return
        scan = scan_submission(sub, ctx.source)
        ctx.facts.put(ScanFact(scan))
        failed = False
        for category, check in CATEGORIES.items():
            items = scan.by_category(category)
            fails = [f for f in items if f.severity == "fail"]
            # one item per defect that fails (so the assessment names each hack), one for the facts
            groups = [[f for f in fails if f.defect == d] for d in dict.fromkeys(f.defect for f in fails)]
            if items and not fails:
                groups = [items]
            for shown in groups:
                failed = failed or shown[0].severity == "fail"
                more = f" (+{len(shown) - _MAX_SHOWN} more)" if len(shown) > _MAX_SHOWN else ""
                item = ctx.add_evidence(self, outcome="fail" if shown[0].severity == "fail" else "info",
                                        defect=shown[0].defect,
                                        summary="; ".join(f.plain() for f in shown[:_MAX_SHOWN]) + more,
                                        check=f"static scan: {check}", spans=[_span(f) for f in shown[:5]],
                                        result={"findings": [asdict(f) for f in shown[:50]]}, rerun=rerun)
                if category == "state":
                    # a concern shown in the draft: state like this can make an answer depend on the
                    # call history; the many-calls probe (integrity_runtime) says whether it does
                    ctx.add_finding(origin="tool", category="integrity:module_state", severity="warning",
                                    message="state that survives a call: " + "; ".join(
                                        f.plain() for f in shown[:_MAX_SHOWN]) + more,
                                    spans=[_span(f) for f in shown[:5]], confirmed_by=[item.id])
        if not failed:
            ctx.add_evidence(self, outcome="pass", summary=self._clean_summary(scan),
                             check="static scan: " + "; ".join(CATEGORIES[c] for c in CATEGORIES
                                                                if c not in ("library", "precision")),
                             result={"files": scan.files, "lines": scan.lines, "kernels": scan.kernels,
                                     "reference_families": scan.reference_families,
                                     "parse_errors": scan.parse_errors}, rerun=rerun)

    @staticmethod
    def _clean_summary(scan: Scan) -> str:
        files = ", ".join(scan.files)
        return (f"static scan of {scan.lines} lines ({files}): no reference reuse, harness access, identity- or "
                f"content-keyed cache, or work escaping the call")

    def rerun_case(self, ctx: ToolContext, case: object) -> None:
        self.run(ctx)
