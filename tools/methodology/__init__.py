"""methodology: read the benchmark script a submission ships with its performance claim for the timing
faults that make the claim meaningless (tools/methodology/lint.py). The script is parsed, never run.

Which script: ``[claims] script = "bench.py"`` in kreview.toml, else the submission's files named
``bench*.py`` / ``benchmark*.py``. Faults are findings of severity ``warning`` on ``info`` evidence:
they say the claim was measured unsoundly, not that the kernel is slow (the benchmark tool remeasures
on a GPU, and the roofline bounds a claimed time)."""

from __future__ import annotations

import re

from reviewer.core.models import SourceSpan
from tools.engine.tool import Tool, ToolContext
from tools.engine.harness.case import Case
from tools.methodology.lint import lint

MAX_SCRIPT_BYTES = 1 << 20
_SCRIPT_NAME = re.compile(r"(?:^|/)(?:bench|benchmark)[\w-]*\.py$")


def benchmark_scripts(ctx: ToolContext) -> list[str]:
    sub = ctx.submission
    named = sub.claims.script
    if named:
        return [named]
    return sorted(f for f in sub.source_files if _SCRIPT_NAME.search(f))


class MethodologyTool(Tool):
    name = "methodology"
    criteria = ("performance",)
    description = "read the shipped benchmark script for timing faults (sync, warm-up, L2, inputs, streams)"

    def applies(self, ctx: ToolContext) -> str | None:
        return None if benchmark_scripts(ctx) else "no benchmark script shipped ([claims] script or bench*.py)"

    def run(self, ctx: ToolContext) -> None:
        sub = ctx.submission
        claim = ", ".join(f"{k}={v}" for k, v in (("speedup", sub.claims.speedup), ("time_us", sub.claims.time_us))
                          if v is not None)
        for name in benchmark_scripts(ctx):
            path = sub.root_path / name
            try:
                inside = path.resolve().is_relative_to(sub.root_path.resolve()) and path.is_file()
                # Rationale: a benchmark script is a page or two; a huge file is not read into this process.
                text = path.read_text(errors="replace") if inside and path.stat().st_size <= MAX_SCRIPT_BYTES else None
            except OSError:
                text = None
            if text is None:
                ctx.add_evidence(self, outcome="unverified", defect="script_missing",
                                 summary=f"benchmark script {name} is not a readable file of the submission (at most 1 MiB)",
                                 reason="named by [claims] script but not found", check="read the script",
                                 rerun=ctx.rerun(self.name))
                continue
            faults = lint(text)
            lines = text.splitlines()
            codes = sorted({f.code for f in faults})
            summary = (f"benchmark script {name}: " + (f"{len(faults)} methodology fault(s): {', '.join(codes)}"
                                                       if faults else "no methodology fault found")
                       + (f" (claim: {claim})" if claim else ""))
            ev = ctx.add_evidence(self, outcome="info", summary=summary, check=f"static reading of {name}",
                                  result={"script": name, "claim": claim or None,
                                          "faults": [f.model_dump() for f in faults]},
                                  rerun=ctx.rerun(self.name))
            for f in faults:
                span = [SourceSpan(file=name, start_line=f.line, end_line=f.line, quote=lines[f.line - 1])] \
                    if 0 < f.line <= len(lines) else []
                what = f" The claimed {claim} rests on this measurement." if claim else ""
                ctx.add_finding(origin="tool", category=f"methodology:{f.code}", severity="warning",
                                message=f"{name}:{f.line}: {f.message}.{what}", spans=span, confirmed_by=[ev.id])

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        self.run(ctx)
