"""compiled_code: read what the compiler produced for each kernel and target, as a kernel engineer would.

It reads the TTGIR and PTX that the ``resources`` tool keeps for every Triton launch and target (compiled
without a GPU; see tools/resources), and the SASS of nvcc's cubin for CUDA C. Per kernel and target it
reports the tensor-core instructions and their operand precision against the data the kernel contracts,
the width of every global access and whether consecutive threads touch consecutive addresses, and the
registers/spills/occupancy resources measured (quoted, not recomputed). Efficiency concerns are findings
of severity ``warning`` on ``info`` evidence: they never decide a verdict on their own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reviewer.core.models import Evidence
from tools.engine.tool import Tool, ToolContext
from tools.compiled_code.ptx import sass_summary
from tools.compiled_code.review import CompiledReview, review_compiled
from tools.engine.compilable import nothing_to_compile
from tools.engine.facts import CompiledKernel, CompiledKernels
from tools.engine.harness.case import Case


class CompiledCodeTool(Tool):
    name = "compiled_code"
    criteria = ("performance",)
    after = ("resources",)
    description = "read TTGIR/PTX/SASS per target: tensor cores and their precision, access widths and coalescing"

    needs = (CompiledKernels,)

    def applies(self, ctx: ToolContext) -> str | None:
        # Rationale: it reads what the resources tool compiles, so it applies exactly where that one
        # does: the engine's one rule for "anything to compile here".
        return nothing_to_compile(ctx.submission)

    def run(self, ctx: ToolContext) -> None:
        self._read(ctx)

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        # Rationale: it reads the compiled code the resources tool leaves (fact CompiledKernels); alone
        # (``kreview rerun --tool compiled_code``) the rerun runs resources first (``Tool.needs``).
        self._read(ctx)

    def _read(self, ctx: ToolContext) -> None:
        compiled = ctx.facts.get(CompiledKernels)
        if compiled is None or not compiled.kernels:
            why = "; ".join(compiled.notes if compiled else ())[:600] or "the resources tool recorded nothing"
            ctx.add_evidence(self, outcome="unverified", defect="no_compiled_code",
                             summary=f"compiled code not reviewed: no kernel was compiled ({why})", reason=why,
                             check="read TTGIR/PTX/SASS kept by resources", rerun=ctx.rerun(self.name))
            return
        for kernel in compiled.kernels:
            if kernel.compiler == "triton":
                self._triton(ctx, kernel)
            else:
                self._cuda(ctx, kernel)

    # -- Triton ------------------------------------------------------------------------------
    def _is_user_file(self, ctx: ToolContext) -> Any:
        own = [f for f in ctx.submission.source_files if f.endswith(".py")]

        def check(path: str) -> bool:
            return "site-packages" not in path and any(path == f or path.endswith("/" + f) for f in own)

        return check

    def _triton(self, ctx: ToolContext, kernel_code: CompiledKernel) -> None:
        ev, ttgir, ptx = kernel_code.item, kernel_code.code, kernel_code.ptx
        base = ctx.run_dir
        meta = ev.result.get("compile", {})
        target = str(ev.result.get("arch") or Path(ttgir).parent.name)
        kernel = str(ev.result.get("kernel") or Path(ttgir).stem)
        int_args = [k for k, v in meta.get("signature", {}).items() if str(v).startswith(("i", "u"))]
        try:
            review = review_compiled(kernel, target, (base / ttgir).read_text(),
                                     (base / ptx).read_text() if ptx else None, is_user_file=self._is_user_file(ctx),
                                     divisible_by_16=meta.get("divisible_by_16", []), int_args=int_args)
        except Exception as exc:  # noqa: BLE001 - an IR this reader does not understand is unverified, not a crash
            ctx.add_evidence(self, outcome="unverified", defect="compiled_code_unreadable",
                             summary=f"{kernel} on {target}: the kept IR could not be read ({exc})", reason=str(exc),
                             check="read TTGIR/PTX kept by resources", rerun=ctx.rerun(self.name))
            return
        # Rationale: the compiler recorded the sandbox's temporary copy; the evidence names the
        # submission's own relative path so that a rerun reproduces it exactly.
        for o in review.observations:
            if o.source_file:
                o.source_file = next((f for f in ctx.submission.source_files
                                      if o.source_file == f or o.source_file.endswith("/" + f)), Path(o.source_file).name)
        self._record(ctx, ev, review, [a for a in (ttgir, ptx) if a])

    def _record(self, ctx: ToolContext, ev: Evidence, review: CompiledReview, artifacts: list[str]) -> None:
        res = ev.result
        occ = res.get("occupancy") or {}
        figures = {"registers": res.get("registers"), "spill_stores": res.get("spill_stores"),
                   "spill_loads": res.get("spill_loads"), "smem_per_block": res.get("smem_per_block"),
                   "occupancy": occ.get("occupancy"), "limiter": occ.get("limiter"), "from_evidence": ev.id}
        tc = ", ".join(f"{t['instruction']} {t['shape']} {t['operand_type']}->{t['accumulator']} x{t['count']}"
                       for t in review.tensor_core) or "no tensor-core instruction"
        widths = sorted({w for a in review.global_accesses for w in a["ptx_widths_bytes"]})
        occ_text = (f", occupancy {occ['occupancy']:.0%} limited by {occ.get('limiter')}"
                    if isinstance(occ.get("occupancy"), (int, float)) else "")
        concerns = review.concerns
        summary = (f"{review.kernel} on {review.target}: {tc}; global access widths "
                   f"{'/'.join(f'{w} B' for w in widths) or 'n/a'} per thread; {res.get('registers')} registers, "
                   f"{res.get('spill_stores', 0)} B spilled{occ_text}; "
                   + (f"{len(concerns)} concern(s): {', '.join(sorted({c.code for c in concerns}))}"
                      if concerns else "no concern"))
        first = next((o.source_line for o in concerns if o.source_line), None)
        item = ctx.add_evidence(self, outcome="info", summary=summary,
                                check=f"read TTGIR+PTX of {review.kernel} for {review.target} (kept by {ev.id})",
                                inputs=ev.inputs, config={"target": review.target},
                                result={**review.model_dump(), "resources": figures},
                                spans=self._spans(ctx, first), rerun=ctx.rerun(self.name), artifacts=artifacts)
        for o in review.observations:
            if o.severity != "warning":
                continue
            quotes = "; ".join(f"{q.ir}:{q.line}: {q.text[:160]}" for q in o.quotes[:3])
            where = f" (line {o.source_line})" if o.source_line else ""
            ctx.add_finding(origin="tool", category=o.code, severity="warning",
                            message=f"{review.kernel} on {o.target}{where}: {o.message} [{quotes}]",
                            spans=self._spans(ctx, o.source_line, o.source_file), confirmed_by=[item.id])

    def _spans(self, ctx: ToolContext, line: int | None, file: str | None = None) -> list[Any]:
        if file is not None and file != ctx.submission.submission_file:
            return []
        return ctx.submission_span(line) if line else []

    # -- CUDA C --------------------------------------------------------------------------------
    def _cuda(self, ctx: ToolContext, kernel_code: CompiledKernel) -> None:
        ev, sass = kernel_code.item, kernel_code.code
        try:
            facts = sass_summary((ctx.run_dir / sass).read_text())
        except OSError as exc:
            ctx.add_evidence(self, outcome="unverified", defect="compiled_code_unreadable",
                             summary=f"SASS of {ev.result.get('kernel')} could not be read ({exc})", reason=str(exc),
                             check="read SASS kept by resources", rerun=ctx.rerun(self.name))
            return
        tc = ", ".join(f"{k} x{n}" for k, n in sorted(facts["tensor_core"].items())) or "no tensor-core instruction"
        mem = ", ".join(f"{k} x{n}" for k, n in sorted(facts["global_access"].items())) or "no global access"
        ctx.add_evidence(self, outcome="info", check=f"cuobjdump -sass (kept by {ev.id})",
                         summary=f"{ev.result.get('kernel')} on {ev.config.get('target')} (whole source's SASS): "
                                 f"{tc}; global accesses {mem}",
                         config={"target": ev.config.get("target")}, result=facts, rerun=ctx.rerun(self.name),
                         artifacts=[sass])
