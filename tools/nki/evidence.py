"""Turning the interpreter's report and the static findings into evidence and findings."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from reviewer.core.models import SourceSpan
import tools.engine.nki.version as V
from tools.nki.report import NkiReport

if TYPE_CHECKING:
    from tools.engine.tool import Tool, ToolContext
    from tools.nki.static import NkiStaticFinding

# kind of a recorded (not raised) event -> (criterion, outcome, defect)
_RECORDED = {
    "uninit_read": ("correctness", "fail", "uninitialised_read"),
    "unwritten_output": ("correctness", "fail", "unwritten_output"),
    "race": ("correctness", "fail", "race"),
    "sbuf_pressure": ("resources", "fail", "sbuf_over_capacity"),
}


def span(ctx: ToolContext, file: str, line: int, end: int | None = None) -> list[SourceSpan]:
    """A span of a submission file named by a path in the child's copy (``.../src/<rel>``)."""
    if not line or not file:
        return []
    rel = file.split("/src/", 1)[1] if "/src/" in file else Path(file).name
    path = ctx.submission.root_path / rel
    try:
        if not path.resolve().is_relative_to(ctx.submission.root_path.resolve()):
            return []
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return []
    end = end or line
    if line < 1 or end > len(lines):
        return []
    return [SourceSpan(file=rel, start_line=line, end_line=end, quote="\n".join(lines[line - 1:end]))]


def _label(report: NkiReport) -> str:
    return report.label or V.INTERPRETER_LABEL


def violation_item(tool: Tool, ctx: ToolContext, report: NkiReport, common: dict[str, Any]) -> None:
    """The kernel raised: a hardware/toolchain rule it breaks, or a feature we do not model."""
    err = report.error
    assert err is not None
    ev = report.raised
    where = span(ctx, ev.file, ev.line) if ev else []
    if err.unsupported:
        ctx.add_evidence(tool, criteria=["builds", "correctness"], outcome="unverified", defect="interpreter_unsupported",
                         summary=f"not checked: {err.message[:300]}", reason=err.message[:300], spans=where,
                         check="run the kernel under the NKI interpreter", **common)
        return
    if not err.code:
        return  # an ordinary exception of the submission: the builds tool reports it
    wording = ("wording of the NKI documentation" if err.documented
               else "reviewer's wording; the documentation states the rule, not the compiler's message")
    ctx.add_evidence(tool, criteria=["builds"], outcome="fail", defect=ev.kind if ev else err.code,
                     summary=f"{err.type}: {err.message[:400]} ({_label(report)})",
                     check="NKI toolchain rules enforced by the interpreter",
                     result={"error": err.model_dump(), "message_source": wording}, spans=where, **common)


def recorded_items(tool: Tool, ctx: ToolContext, report: NkiReport, common: dict[str, Any]) -> set[str]:
    """One item per kind of recorded defect; returns the criteria that got a failing item."""
    failed: set[str] = set()
    for kind, (criterion, outcome, defect) in _RECORDED.items():
        events = report.of_kind(kind)
        if not events:
            continue
        first = events[0]
        more = f" (+{len(events) - 1} more)" if len(events) > 1 else ""
        ctx.add_evidence(tool, criteria=[criterion], outcome=outcome, defect=defect,  # type: ignore[arg-type]
                         summary=f"{first.message[:400]}{more} ({_label(report)})",
                         check=f"NKI interpreter: {kind.replace('_', ' ')}",
                         result={"events": [e.model_dump(exclude_defaults=True) for e in events[:10]]},
                         spans=[s for e in events[:3] for s in _event_spans(ctx, e)], **common)
        failed.add(criterion)
    return failed


def _event_spans(ctx: ToolContext, e: Any) -> list[SourceSpan]:
    """The event's line; for a race, the other access's line first (both sides of the conflict)."""
    first = e.data.get("first_site") if isinstance(e.data.get("first_site"), dict) else None
    other = span(ctx, str(first.get("file", "")), int(first.get("line") or 0)) if first else []
    here = span(ctx, e.file, e.line)
    return other + [s for s in here if not other or s.start_line != other[0].start_line]


def clean_items(tool: Tool, ctx: ToolContext, report: NkiReport, failed: set[str], common: dict[str, Any]) -> None:
    """What the run showed when nothing was wrong in a category: passes with their figures."""
    n = len(report.launches)
    ops = sum(report.ops.values())
    if "builds" not in failed:
        ctx.add_evidence(tool, criteria=["builds"], outcome="pass",
                         summary=f"{n} kernel launch(es), {ops} NKI operations: no partition, tile-size, PSUM/SBUF, "
                                 f"memory-space, dtype or indexing rule violated ({_label(report)})",
                         check="NKI toolchain rules enforced by the interpreter",
                         result={"launches": report.launches[:8], "ops": report.ops}, **common)
    if "correctness" not in failed:
        ctx.add_evidence(tool, criteria=["correctness"], outcome="pass",
                         summary="no undefined value reached an output, every output element was written, and no "
                                 f"affine_range iteration or SPMD program touched elements another one wrote or read (no race; {_label(report)})",
                         check="NKI interpreter: uninitialised data, unwritten outputs, affine-loop hazards",
                         result={"loops": report.loops[:20]}, **common)
    if "resources" not in failed:
        sb = report.peak.get("sbuf", {}).get("bytes_per_partition", 0)
        ps = report.peak.get("psum", {}).get("bytes_per_partition", 0)
        ctx.add_evidence(tool, criteria=["resources"], outcome="pass",
                         summary=f"peak live on-chip memory per partition: SBUF {sb} of {V.SBUF_BYTES_PER_PARTITION} "
                                 f"bytes, PSUM {ps} of {V.PSUM_BYTES_PER_PARTITION} bytes on {V.TARGET} "
                                 f"({_label(report)})",
                         check="NKI interpreter: SBUF/PSUM accounting by tensor lifetime and loop scope",
                         result={"peak": report.peak}, **common)


#: interpreter operations that only move, lay out or create data; every other recorded operation
#: (element-wise, activation, reduction, matmul, ``+=``, DMA accumulation) is arithmetic
MOVEMENT_OPS = frozenset({"load", "store", "copy", "load_transpose2d", "broadcast_to", "expand_dims", "assign",
                          "ndarray", "zeros", "ones", "full", "rand", "shared_constant", "iota", "dma_copy",
                          "nc_transpose", "transpose"})


def _values(x: Any) -> list[np.ndarray]:
    """Every floating/integer tensor in ``x`` as a flat float64 array (torch, NumPy or JAX)."""
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in _values(item)]
    if isinstance(x, dict):
        return [v for item in x.values() for v in _values(item)]
    if hasattr(x, "detach") and hasattr(x, "dtype"):
        x = x.detach().to("cpu").float().numpy()
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError):
        return []
    if arr.dtype.kind not in "fiub" or arr.size == 0:
        return []
    return [arr.astype(np.float64).ravel()]


def new_value_share(outputs: Any, inputs: Any) -> tuple[float, int]:
    """Share of the reference's distinct output values that appear nowhere among its inputs (arithmetic
    results rather than moved input values), and the number of distinct output values. Distinct values,
    so that a fill (padding zeros, a constant) counts once however many elements it covers."""
    outs, ins = _values(outputs), _values(inputs)
    if not outs:
        return 0.0, 0
    out = np.unique(np.concatenate(outs))
    out = out[~np.isnan(out)]
    if out.size == 0:
        return 0.0, 0
    pool = np.unique(np.concatenate(ins)) if ins else np.empty(0)
    return float((~np.isin(out, pool)).mean()), int(out.size)


def work_item(tool: Tool, ctx: ToolContext, report: NkiReport, reference_outputs: Any, reference_inputs: Any,
              common: dict[str, Any]) -> None:
    """Who did the work: the kernel's executed instructions against what the reference computes.

    A kernel that executed only data movement (loads, stores, copies) returns values it did not compute.
    That is a defect unless the reference itself only moves data: when most of the reference's distinct
    output values appear nowhere among its inputs, the reference does arithmetic, and a movement-only kernel
    returned a result computed outside it (by the Python wrapper, with NumPy or torch)."""
    compute = {k: v for k, v in report.ops.items() if k not in MOVEMENT_OPS and v > 0}
    moved = {k: v for k, v in report.ops.items() if k in MOVEMENT_OPS and v > 0}
    listing = lambda ops: ", ".join(f"{k} x{v}" for k, v in sorted(ops.items(), key=lambda kv: -kv[1])[:6])  # noqa: E731
    check = "NKI interpreter: the kernel's executed instructions (arithmetic vs data movement) against the reference"
    result = {"compute_ops": compute, "movement_ops": moved}
    if compute:
        ctx.add_evidence(tool, criteria=["integrity"], outcome="pass",
                         summary=f"the NKI kernel(s) computed: {sum(compute.values())} arithmetic instruction(s) "
                                 f"({listing(compute)}) besides {sum(moved.values())} data-movement one(s) "
                                 f"({_label(report)})", check=check, result=result, **common)
        return
    share, n = new_value_share(reference_outputs, reference_inputs)
    result.update(reference_new_value_share=round(share, 4), reference_distinct_outputs=n)
    if n == 0 or share < 0.5:
        ctx.add_evidence(tool, criteria=["integrity"], outcome="info",
                         summary=f"the NKI kernel(s) only moved data ({listing(moved) or 'nothing'}); so does the "
                                 f"reference: {100 * share:.0f}% of its {n} distinct output value(s) are not input values "
                                 f"({_label(report)})", check=check, result=result, **common)
        return
    where = [sp for launch in report.launches[:3]
             for sp in span(ctx, str(launch.get("file", "")), int(launch.get("line") or 0))]
    ctx.add_evidence(tool, criteria=["integrity"], outcome="fail", defect="kernel_only_moves_data", spans=where,
                     summary=f"the NKI kernel(s) executed no arithmetic, only data movement ({listing(moved)}), yet "
                             f"{100 * share:.0f}% of the reference's {n} distinct output values appear nowhere among its "
                             "inputs: the values the kernel returned were computed outside it, by the Python code "
                             f"around the kernel ({_label(report)})", check=check, result=result, **common)


def loop_hints(tool: Tool, ctx: ToolContext, report: NkiReport, common: dict[str, Any]) -> None:
    for loop in report.loops:
        if loop.get("kind") in ("sequential", "range") and not loop.get("carried") and loop.get("trips", 0) > 1:
            what = "Python range (compiled as nl.sequential_range)" if loop["kind"] == "range" else "nl.sequential_range"
            ctx.add_evidence(tool, criteria=["performance"], outcome="info", defect="sequential_could_be_affine",
                             summary=f"{what} loop ran {loop['trips']} iterations with no dependency between them: "
                                     f"nl.affine_range would let the compiler overlap them ({_label(report)})",
                             check="NKI interpreter: cross-iteration accesses per loop",
                             result={"loop": loop}, spans=span(ctx, loop.get("file", ""), loop.get("line", 0)),
                             **common)


def static_items(tool: Tool, ctx: ToolContext, findings: list[NkiStaticFinding], report: NkiReport | None) -> None:
    path = ctx.submission.path(ctx.submission.submission_file)
    rerun = f"python -m tools.nki.static {shlex.quote(str(path))}"
    for f in findings:
        where = ctx.submission_span(f.line, f.end_line)
        ev = ctx.add_evidence(tool, criteria=[f.criterion], outcome="info", defect=f.code,
                              summary=f"static: {f.message}", check="NKI static check on the syntax tree",
                              result=f.model_dump(), spans=where, rerun=rerun)
        confirmed = [e.id for e in ctx.evidence if e.tool == tool.name and e.outcome == "fail"
                     and _confirms(f, e.defect, e.result, report)]
        ctx.add_finding(category=f"nki:{f.code}", severity=f.severity, message=f.message, spans=where,
                        confirmed_by=[ev.id] + confirmed if confirmed else [])


def _confirms(f: NkiStaticFinding, defect: str | None, result: dict[str, Any], report: NkiReport | None) -> bool:
    if f.code == "affine_carried_dependency":
        return defect in ("race", "affine_output_dependency")
    if f.code == "tail_not_handled":
        return defect in ("unwritten_output", "uninitialised_read")
    if f.code in ("partition_limit", "control_flow_on_tensor"):
        return defect in ("partition_limit", "dynamic_control_flow", "ambiguous_truth")
    return False

