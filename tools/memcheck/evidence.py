"""From sanitizer runs to evidence items.

One ``fail`` item per distinct violation site (kind, kernel, source line, argument, direction),
citing the smallest nominal case that shows it, else the smallest boundary case; its criteria are
``correctness`` if a nominal case shows it and ``generality`` if a boundary case does. The other
failing cases are listed with their reruns. Every case without a violation gets its own ``pass`` item, and every case that could
not be checked an ``unverified`` (or ``fail``, for crashes) item saying why.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path
from typing import Any

from reviewer.core.models import SourceSpan
from tools.engine.tool import Tool, ToolContext, failure_details
from tools.memcheck.sanitized_runs import CaseRun
from tools.engine.outcomes import classify_failure
from tools.engine.source import parse as parse_source

_DIRECTION = {"past_end": "past the end", "before_start": "before the start"}
_VERB = {"oob_load": "loads", "oob_store": "stores", "oob_atomic": "atomically updates"}
# Rationale: the exceptions a submission raises on purpose to refuse an input it does not support.
_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.While, ast.If, ast.With, ast.Try)
_REJECTIONS = ("ValueError", "AssertionError", "NotImplementedError", "TypeError", "RuntimeError")


def _label(run: CaseRun) -> str:
    case = run.case
    return case.label or f"case {case.id} ({', '.join(f'{k}={v}' for k, v in case.params.items()) or 'nominal sizes'})"


def _criterion(nominal: bool) -> list[str]:
    return ["correctness"] if nominal else ["generality"]


def _rel(ctx: ToolContext, path: str | None) -> str | None:
    """The submission-relative name of a file the child reported by its sandbox path."""
    if not path:
        return None
    sub = ctx.submission
    for rel in [sub.submission_file, *sub.source_files]:
        if path == rel or path.endswith("/" + rel):
            return rel
    return None


def span(ctx: ToolContext, path: str | None, line: int | None) -> list[SourceSpan]:
    """The whole statement at ``line`` of the submission's copy of ``path``, quoted from the parent's
    own copy of the file (never from what the child said)."""
    rel = _rel(ctx, path)
    if rel is None or not line:
        return []
    text = ctx.source.file(rel)
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return []
    start = end = line
    try:
        tree = parse_source(text)
        best = None
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not isinstance(node, _COMPOUND) \
                    and node.lineno <= line <= (node.end_lineno or node.lineno) \
                    and (best is None or (node.end_lineno or 0) - node.lineno < (best.end_lineno or 0) - best.lineno):
                best = node
        if best is not None:
            start, end = best.lineno, best.end_lineno or best.lineno
    except SyntaxError:
        pass
    return [SourceSpan(file=rel, start_line=start, end_line=end, quote="\n".join(lines[start - 1:end]))]


def _where(ctx: ToolContext, v: dict[str, Any]) -> str:
    rel = _rel(ctx, v.get("file")) or Path(v.get("file") or "?").name
    return f"{rel}:{v.get('line')}"


def _site_key(v: dict[str, Any]) -> tuple[Any, ...]:
    return (v.get("kind"), v.get("kernel"), v.get("file"), v.get("line"), v.get("arg"), v.get("direction"),
            v.get("message"))


def _why(run: CaseRun, v: dict[str, Any]) -> str:
    """A measured reason for a past-the-end access: the argument's size against the block sizes."""
    if v.get("direction") != "past_end" or not v.get("arg_shape"):
        return ""
    numel = math.prod(v["arg_shape"])
    blocks = {k: b for k, b in run.block_constexprs(v.get("kernel")).items() if b >= 2 and b & (b - 1) == 0}
    off = [f"{k}={b}" for k, b in blocks.items() if numel % b]
    if not off:
        return ""
    return f"; {v['arg']} has {numel} elements, not a multiple of {', '.join(off)}"


def describe(ctx: ToolContext, run: CaseRun, v: dict[str, Any]) -> str:
    kind, kernel = v.get("kind"), v.get("kernel")
    progs = f"{v.get('programs')} program(s) (first pid {tuple(v['program_ids'][0]) if v.get('program_ids') else '?'})"
    at = f"at {_where(ctx, v)}"
    if kind in _VERB:
        lo, hi = v.get("valid_elements", [0, 0])
        how = "unmasked" if not v.get("masked") else "masked (the mask admits these lanes)"
        return (f"{kernel} {_VERB[kind]} {_DIRECTION.get(v.get('direction'), v.get('direction'))} of {v.get('arg')}: "
                f"elements {v.get('element_min')}..{v.get('element_max')} (valid {lo}..{hi - 1}), {how}, "
                f"{v.get('lanes')} lane(s) in {progs} {at} on {_label(run)}{_why(run, v)}")
    if kind == "device_assert":
        return (f"{kernel}: tl.device_assert failed ({v.get('message')!r}) for {v.get('lanes')} lane(s) in {progs} "
                f"{at} on {_label(run)}")
    if kind == "int32_overflow":
        o = v.get("origin") or {}
        return (f"{kernel}: the {v.get('access')} {at} uses an offset whose int32 {o.get('op')} wrapped at "
                f"{_where(ctx, o)} ({o.get('lhs')} {o.get('op')} {o.get('rhs')} = {o.get('exact')}, wrapped to "
                f"{o.get('wrapped')}) for {v.get('lanes')} lane(s) in {progs} on {_label(run)}")
    if kind == "race":
        (a, b) = v.get("race_programs") or [[0, 0, 0], [0, 0, 0]]
        first = v.get("first_site") or {}
        verbs = {"store/store": "both plain-store", "store/load": "plain-store / plain-load",
                 "store/atomic": "plain-store / atomically update"}
        elem = f" element {v.get('element')} of {v.get('arg')}" if v.get("arg") else " one address"
        return (f"{kernel}: race: programs {tuple(a)} and {tuple(b)} {verbs.get(v.get('accesses'), v.get('accesses'))}"
                f"{elem} without atomics (at {_where(ctx, first)} and {_where(ctx, v)}); {v.get('lanes')} "
                f"conflicting lane(s) on {_label(run)}. The interpreter runs programs one after another, so its "
                "result can look right; on a GPU they run concurrently and updates are lost")
    return f"{kernel}: {kind} {at} on {_label(run)}"


def _inputs(run: CaseRun) -> dict[str, Any]:
    return {"case": run.case.model_dump(), "tensors": run.inputs, "nominal": run.nominal}


def _config(ctx: ToolContext, run: CaseRun) -> dict[str, Any]:
    return {**ctx.environment(), "instruments": ["triton_sanitizer", "triton_launches"],
            "triton": (run.sanitizer or {}).get("triton")}


def _counts(data: dict[str, Any]) -> dict[str, Any]:
    keys = ("launches", "programs", "loads", "stores", "atomics", "lanes_checked", "asserts_evaluated")
    return {k: data.get(k, 0) for k in keys}


def emit_violations(ctx: ToolContext, tool: Tool, runs: list[CaseRun]) -> None:
    sites: dict[tuple[Any, ...], list[tuple[CaseRun, dict[str, Any]]]] = {}
    for run in runs:
        for v in run.violations:
            sites.setdefault(_site_key(v), []).append((run, v))
    for hits in sites.values():
        hits.sort(key=lambda h: (not h[0].nominal, h[0].numel))
        run, v = hits[0]
        spans = span(ctx, v.get("file"), v.get("line"))
        if v.get("kind") == "int32_overflow":
            o = v.get("origin") or {}
            spans += [s for s in span(ctx, o.get("file"), o.get("line")) if s not in spans]
        if v.get("kind") == "race":
            o = v.get("first_site") or {}
            spans += [s for s in span(ctx, o.get("file"), o.get("line")) if s not in spans]
        also = [{"case": _label(r), "rerun": ctx.rerun(tool.name, r.case), "lanes": w.get("lanes")}
                for r, w in hits[1:]]
        more = f"; also on {len(also)} other case(s)" if also else ""
        criteria = sorted({c for r, _ in hits for c in _criterion(r.nominal)})
        ctx.add_evidence(tool, outcome="fail", defect=v.get("kind"), criteria=criteria,
                         summary=describe(ctx, run, v) + more,
                         check="run under the Triton CPU sanitizer (bounds, device_assert, int32 index wrap, races between programs)",
                         inputs=_inputs(run), config=_config(ctx, run),
                         result={"violation": v, "counts": _counts(run.sanitizer or {}), "also_failing": also,
                                 "truncated": bool((run.sanitizer or {}).get("truncated"))},
                         spans=spans, rerun=ctx.rerun(tool.name, run.case),
                         duration_s=run.call.duration_s if run.call else 0.0)


def emit_case(ctx: ToolContext, tool: Tool, run: CaseRun) -> None:
    """The item for a case without violations: pass, or why it could not be checked."""
    if run.violations:
        return
    crit, rerun = _criterion(run.nominal), ctx.rerun(tool.name, run.case)
    common = {"criteria": crit, "inputs": _inputs(run), "config": _config(ctx, run), "rerun": rerun,
              "check": "run under the Triton CPU sanitizer (bounds, device_assert, int32 index wrap, races between programs)"}
    call = run.call
    if run.status == "reference_failed":
        text = call.failure_text()[:300] if call else ""
        if run.nominal:
            ctx.add_evidence(tool, outcome="unverified", defect="reference_failed", reason="reference failed",
                             summary=f"the reference failed on {_label(run)}: {text}",
                             result=failure_details(call) if call else {}, **common)
        else:
            ctx.add_evidence(tool, outcome="info", summary=f"{_label(run)} skipped: the reference rejects it ({text})",
                             result=failure_details(call) if call else {}, **common)
        return
    if run.status == "incompatible":
        msg = (call.error or {}).get("message", "") if call else ""
        ctx.add_evidence(tool, outcome="unverified", defect="sanitizer_incompatible", reason=msg[:500],
                         summary=f"not checked on {_label(run)}: {msg[:300]}", **common)
        return
    if run.status == "call_failed":
        _emit_failed_call(ctx, tool, run, common)
        return
    _emit_checked(ctx, tool, run, common)


def _emit_checked(ctx: ToolContext, tool: Tool, run: CaseRun, common: dict[str, Any]) -> None:
    data = run.sanitizer or {}
    total = int((run.launches or {}).get("total", 0))
    seen = int(data.get("launches", 0))
    result = {"counts": _counts(data), "triton_launches": total, "kernels": data.get("kernels", {}),
              "duration_s": round(run.call.duration_s, 3) if run.call else None}
    if not data.get("installed"):
        ctx.add_evidence(tool, outcome="unverified", defect="sanitizer_missing", reason="the sanitizer did not report",
                         summary=f"{_label(run)}: the sanitizer report is missing from the child's answer",
                         result=result, **common)
    elif data.get("tampered"):
        ctx.add_evidence(tool, outcome="unverified", defect="sanitizer_tampered",
                         reason="code running in the call replaced the sanitizer's hooks",
                         summary=f"{_label(run)}: the sanitizer's hooks were replaced during the call "
                                 f"({', '.join(data['tampered'][:4])}); its report cannot be trusted",
                         result={**result, "tampered": data["tampered"]}, **common)
    elif data.get("internal_errors"):
        ctx.add_evidence(tool, outcome="unverified", defect="sanitizer_error",
                         reason="the sanitizer hit an internal error; some accesses may be unchecked",
                         summary=f"{_label(run)}: sanitizer internal error: {data['internal_errors'][0]}",
                         result={**result, "internal_errors": data["internal_errors"]}, **common)
    elif total == 0 and seen == 0:
        ctx.add_evidence(tool, outcome="info", summary=f"{_label(run)}: no Triton kernel was launched; "
                         "nothing for the sanitizer to check", result=result, **common)
    elif seen and not (data.get("loads") or data.get("stores") or data.get("atomics")):
        ctx.add_evidence(tool, outcome="unverified", defect="no_accesses_seen",
                         reason="launches ran but the sanitizer saw no memory access",
                         summary=f"{_label(run)}: {seen} launch(es) ran but no load, store or atomic reached "
                                 "the sanitizer", result=result, **common)
    elif seen < total:
        ctx.add_evidence(tool, outcome="unverified", defect="not_interpreted",
                         reason="some launches did not run under the interpreter, so they were not checked",
                         summary=f"{_label(run)}: only {seen} of {total} Triton launches ran under the "
                                 "sanitized interpreter", result=result, **common)
    else:
        c = result["counts"]
        ctx.add_evidence(tool, outcome="pass", result=result, duration_s=run.call.duration_s if run.call else 0.0,
                         summary=f"{_label(run)}: no out-of-bounds access, failed device_assert or int32 index "
                                 f"wrap in {c['launches']} launch(es), {c['programs']} program(s): "
                                 f"{c['lanes_checked']} lanes checked over {c['loads']} loads, {c['stores']} stores"
                                 f" and {c['atomics']} atomics; {c['asserts_evaluated']} device_asserts evaluated",
                         **common)


def _own_rejection(ctx: ToolContext, run: CaseRun) -> bool:
    """The submission refused the input with its own exception (raised in its own file, outside a
    kernel): a valid answer to an off-nominal input, not a memory-safety question."""
    err = (run.call.error if run.call else None) or {}
    if err.get("type") not in _REJECTIONS:
        return False
    frames = [ln for ln in (err.get("traceback") or "").splitlines() if ln.strip().startswith('File "')]
    if not frames:
        return False
    last = frames[-1]
    return any(f'/{rel}"' in last for rel in [ctx.submission.submission_file, *ctx.submission.source_files]) \
        and not (run.sanitizer or {}).get("interpreter_errors")


def _emit_failed_call(ctx: ToolContext, tool: Tool, run: CaseRun, common: dict[str, Any]) -> None:
    call = run.call
    assert call is not None
    result = failure_details(call)
    interp = (run.sanitizer or {}).get("interpreter_errors") or []
    if interp:
        result["interpreter_errors"] = interp
    if not run.nominal and _own_rejection(ctx, run):
        ctx.add_evidence(tool, outcome="info", result=result, **common,
                         summary=f"{_label(run)}: the submission rejects this input itself "
                                 f"({call.failure_text()[:200]}); no memory access to check")
        return
    if interp:
        e = interp[0]
        unsupported = e.get("type") == "NotImplementedError" or "not supported" in str(e.get("message"))
        spans = span(ctx, e.get("file"), e.get("line"))
        text = (f"{_label(run)}: the Triton interpreter raised {e.get('type')} in kernel {e.get('kernel')} "
                f"(program {tuple(e.get('program') or ())}): {str(e.get('message'))[:200]}")
        if unsupported:
            ctx.add_evidence(tool, outcome="unverified", defect="interpreter_unsupported", spans=spans, result=result,
                             reason="the CPU interpreter cannot run this kernel", summary=text, **common)
        else:
            ctx.add_evidence(tool, outcome="fail", defect="interpreter_error", spans=spans, result=result,
                             summary=text, **common)
        return
    c = classify_failure(call, interpreted=True, input_numel=run.numel, on_cpu=not ctx.device.has_gpu,
                         stage=f"the sanitized call on {_label(run)}")
    summary = c.reason
    if call.crash is not None and call.crash.kind in ("signal", "exit"):
        summary += (" (with the sanitizer stopping every out-of-bounds load and store: the fault is elsewhere, "
                    "e.g. in the interpreter or native code)")
    ctx.add_evidence(tool, outcome=c.outcome, defect=c.defect, summary=summary, result=result,
                     reason=c.reason if c.outcome == "unverified" else None, **common)
