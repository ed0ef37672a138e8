"""diagnosis: every failure another tool recorded (build, compile, run), classified in a kernel
engineer's words: one stable code per class (tools/diagnosis/table.py), what it means, the likely fix,
the compiler/runtime message kept verbatim, and the source line when the traceback or the compiler
names one. It adds explanation only: its evidence is ``info`` and never changes a verdict."""

from __future__ import annotations

import re
from typing import Any

from reviewer.core.models import Evidence
from tools.engine.registry import results
from tools.engine.results import FailureDetails
from tools.engine.tool import Tool, ToolContext
from tools.diagnosis.table import Diagnosis, classify

# Rationale: these defects are verdicts about results, not failures to build or run; nothing to diagnose.
_NOT_FAILURES = {"mismatch", "wrong_result", "numerics", "nan", "inf", "tolerance", "constant_output",
                 "register_spills", "low_occupancy", "impossible_speed"}


def failure_text(ev: Evidence, r: FailureDetails | None = None) -> str:
    r = ev.result_as(FailureDetails) if r is None else r
    parts: list[Any] = [r.error_type, r.message, r.error, r.traceback, r.stderr_tail, r.crash, ev.defect, ev.reason,
                        ev.summary]
    if isinstance(r.ptxas_error, dict):
        parts.append(str(r.ptxas_error))
    return "\n".join(str(p) for p in parts if p)


def source_line(text: str, files: list[str], source: dict[str, str]) -> tuple[str, int] | None:
    """(file, line) of the failure in the submission's own files: the innermost traceback frame in one of
    them, else the line a Triton CompilationError quotes, else an nvcc ``file(N): error``."""
    frames = [(p, int(n)) for p, n in re.findall(r'File "([^"]+)", line (\d+)', text)]
    for path, n in reversed(frames):
        for f in files:
            if path == f or path.endswith("/" + f):
                return f, n
    m = re.search(r"at (\d+):\d+:\n(.+)", text)
    if m is not None:
        # Triton quotes the kernel from its first line; "at L:C" counts lines from there.
        rel, first = int(m.group(1)), m.group(2).strip()
        for f in files:
            for i, line in enumerate(source.get(f, "").splitlines(), 1):
                if first and line.strip() == first:
                    return f, i + rel - 1
    m = re.search(r"([\w./-]+\.(?:cu|cuh|cpp|h))\((\d+)\): (?:error|catastrophic error)", text)
    if m is not None:
        return m.group(1), int(m.group(2))
    return None


class DiagnosisTool(Tool):
    name = "diagnosis"
    criteria = ("builds",)
    after_results = (FailureDetails,)
    """Every tool whose results carry build, compile or runtime errors (``FailureDetails``), whatever its name."""
    description = "classify every build/compile/run failure: code, explanation, likely fix, message, line"

    def run(self, ctx: ToolContext) -> None:
        files = list(ctx.submission.source_files)
        sources: dict[str, str] = {}
        for f in files:
            try:
                sources[f] = (ctx.submission.root_path / f).read_text(errors="replace")
            except OSError:
                continue
        seen: set[tuple[str, str]] = set()
        for ev, details in results(ctx.evidence, FailureDetails):
            if ev.outcome not in ("fail", "unverified") or (ev.defect or "") in _NOT_FAILURES:
                continue
            text = failure_text(ev, details)
            d = classify(text)
            if d is None:
                continue
            key = (d.code, d.matched)
            if key in seen:
                continue
            seen.add(key)
            self._record(ctx, ev, d, source_line(text, files, sources))

    def _record(self, ctx: ToolContext, ev: Evidence, d: Diagnosis, where: tuple[str, int] | None) -> None:
        spans = ctx.submission_span(where[1]) if where and where[0] == ctx.submission.submission_file else []
        at = f" at {where[0]}:{where[1]}" if where else ""
        whose = "the reviewer's environment, not the kernel" if d.environment else "the submission"
        summary = f"{d.code}{at} ({ev.tool} evidence {ev.id}): {d.explanation}; likely fix: {d.fix}"
        item = ctx.add_evidence(self, outcome="info", summary=summary, defect=d.code,
                                check=f"classify the failure recorded by {ev.id}",
                                result={**d.model_dump(), "diagnosed": ev.id, "attributed_to": whose,
                                        "source": {"file": where[0], "line": where[1]} if where else None},
                                spans=spans, rerun=ev.rerun)
        ctx.add_finding(origin="tool", category=f"failure:{d.code}", severity="info",
                        message=f"{d.title}{at}: {d.explanation}. Likely fix: {d.fix}. Message: {d.message[:400]}",
                        spans=spans, confirmed_by=[ev.id, item.id])
