"""The runtime integrity checks: pure functions from what the probe observed to a verdict.

Each check takes an ``IntegrityObservation`` (the reference's trace and outputs, the submission's
three calls, the static scan) and returns a ``Check``; the tool turns checks into evidence. Nothing here runs code.
"""

from __future__ import annotations

import math

from dataclasses import dataclass, field
from typing import Any

import torch

from reviewer.core.models import Outcome
from tools.engine.backends.base import Backend
from tools.engine.registry import backend_for
import tools.engine.harness.alarm as alarm
import tools.engine.harness.signals as signals
from tools.engine.compare import compare_outputs, output_spread
from tools.engine.harness.tensors import flatten
from tools.integrity.static_scan import Scan, ScanHit

# Rationale: when torch operators already do half of the reference's work, the submission's own
# kernels cannot be doing "the" computation, whatever else they launch.
LIBRARY_SHARE_FAIL = 0.5
# Rationale: a family carrying this share of the reference's work is its core computation.
CORE_FAMILY_SHARE = 0.25
_FLOAT_RANK = {"float8": 8, "float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}


@dataclass
class Check:
    name: str
    outcome: Outcome
    summary: str
    check: str
    defect: str | None = None
    reason: str | None = None
    result: dict[str, Any] = field(default_factory=dict)
    lines: list[int] = field(default_factory=list)
    """Lines of the submission file this check points at (quoted by the tool)."""


@dataclass
class IntegrityObservation:
    """What the integrity probe of one case observed, on both sides."""

    framework: str
    on_gpu: bool
    case_label: str
    public_seed: bool
    input_specs: list[dict[str, Any]]
    ref: dict[str, Any]
    """The ``integrity_reference`` answer: trace, outputs (described), mutated_inputs."""
    sub: dict[str, Any]
    """The ``integrity_probe`` answer: calls, trace, later_traces, launches, guard."""
    expected_a: Any
    expected_b: Any | None
    outputs: list[Any | None]
    """Loaded outputs of calls 1-3 (None where the call failed or was skipped)."""
    inputs_after: Any
    pristine: Any
    atol: float | None
    rtol: float | None
    scan: Scan
    submission_file: str
    budget_ok: dict[int, bool] = field(default_factory=dict)
    """Call index -> within the float64 error budget against the reference for its inputs, for
    calls outside the default tolerance (a correct reordering at large K is; tools/engine/evaluate.py)."""
    alarms: list[dict[str, Any]] = field(default_factory=list)
    """Alarms the submission's children wrote out of band during the review so far
    (tools/engine/harness/alarm.py, ``SandboxSession.submission_alarms``)."""
    child: str = ""
    """The child that answered the probe (``CallResult.child``)."""

    @property
    def backend(self) -> Backend:
        """The framework's backend: what launch counts and traces say about its kernels."""
        return backend_for(self.framework)


# -- helpers ---------------------------------------------------------------------------------

def shape_text(spec: dict[str, Any]) -> str:
    shape = spec.get("shape")
    dims = "x".join(str(d) for d in shape) if shape else "scalar"
    return f"{spec.get('dtype', '?')} {dims}"


def _blank(t: torch.Tensor) -> bool:
    """One value everywhere (NaN counted as one value): a buffer that carries no information."""
    if t.numel() == 0:
        return True
    flat = t.reshape(-1)
    if t.is_floating_point() and bool(torch.isnan(flat).all()):
        return True
    return bool((flat == flat[0]).all())


def _poison(t: torch.Tensor) -> bool:
    """Filled by ``torch.empty`` while the case was made (tools/engine/harness/defined_empty.py): all NaN."""
    return t.is_floating_point() and t.numel() > 0 and bool(torch.isnan(t).all())


def _same(a: Any, b: Any) -> bool:
    """Bitwise equal structures (NaN equal to NaN)."""
    la = flatten(a if isinstance(a, (list, tuple)) else [a])
    lb = flatten(b if isinstance(b, (list, tuple)) else [b])
    if [p for p, _ in la] != [p for p, _ in lb]:
        return False
    for (_, x), (_, y) in zip(la, lb, strict=True):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.shape != y.shape or x.dtype != y.dtype:
                return False
            eq = (x == y) | (torch.isnan(x) & torch.isnan(y)) if x.is_floating_point() else (x == y)
            if not bool(eq.all()):
                return False
        elif x != y:
            return False
    return True


def _num(x: float | None) -> str:
    """A difference for the text: ``_max_diff`` is None where the two differ only at NaN/inf positions."""
    return f"{x:.3g}" if x is not None else "an unmeasured amount (only NaN/inf positions differ)"


def _max_diff(a: Any, b: Any) -> float | None:
    out = None
    for (_, x), (_, y) in zip(flatten(a if isinstance(a, list) else [a]), flatten(b if isinstance(b, list) else [b])):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor) and x.shape == y.shape and x.numel():
            d = (x.double() - y.double()).abs()
            d = d[torch.isfinite(d)]
            if d.numel():
                out = max(out or 0.0, float(d.max()))
    return out


def _ops(trace: dict[str, Any], kinds: tuple[str, ...]) -> list[dict[str, Any]]:
    return [e for e in trace.get("ops", []) if e.get("kind") in kinds]


def _site_text(entry: dict[str, Any]) -> str:
    site = entry.get("site") or {}
    api = entry.get("api")
    where = f" at {site['file']}:{site['line']}" if site.get("file") else ""
    return (f"{api} ({entry['op']})" if api else entry["op"]) + where


def _largest_text(entry: dict[str, Any], input_specs: list[dict[str, Any]]) -> str:
    largest = entry.get("largest") or {}
    args = largest.get("args") or []
    if not args:
        return ""
    shapes = [s.get("shape") for s in input_specs]
    matching = [a for a in args if a.get("shape") in shapes]
    first = matching[0] if matching else max(args, key=lambda a: int(torch.Size(a.get("shape") or []).numel()))
    full = bool(matching)
    return (" on the full " if full else " on a ") + shape_text(first) + (" input" if full else " tensor")


def _static_for_line(scan: Scan, file: str, line: int | None) -> ScanHit | None:
    if line is None:
        return None
    for f in scan.by_category("library"):
        if f.file == file and f.line <= line <= f.end_line:
            return f
    return None


def _lines_of(entries: list[dict[str, Any]], file: str) -> list[int]:
    out = []
    for e in entries:
        site = e.get("site") or {}
        if site.get("file") == file and site.get("line"):
            out.append(int(site["line"]))
    return sorted(set(out))


def reference_work(ref_trace: dict[str, Any]) -> tuple[float, dict[str, float]]:
    """Total cost of the reference's compute and movement operators, and the cost per family."""
    fams: dict[str, float] = {}
    for e in _ops(ref_trace, ("compute", "movement")):
        fams[e["family"]] = fams.get(e["family"], 0.0) + float(e["cost"])
    return sum(fams.values()), fams


def library_share(trace: dict[str, Any], ref_families: dict[str, float], ref_total: float
                  ) -> tuple[float, list[dict[str, Any]]]:
    """Share of the reference's work that torch operators did in a traced call, and those operators."""
    if ref_total <= 0:
        return 0.0, []
    used = [e for e in trace.get("ops", []) if e.get("kind") == "compute"
            or (e.get("kind") == "movement" and e.get("family") in ref_families)]
    used = [e for e in used if e.get("cost", 0) > 0]
    used.sort(key=lambda e: -float(e["cost"]))
    return sum(float(e["cost"]) for e in used) / ref_total, used


# -- the checks ------------------------------------------------------------------------------

def check_library(p: IntegrityObservation) -> Check:
    name, what = "library_compute", "torch operators traced during forward vs the reference's own operators"
    ref_total, ref_fams = reference_work(p.ref.get("trace", {}))
    if ref_total <= 0:
        return Check(name, "info", "the reference's forward runs no arithmetic operator (views or allocation "
                     "only), so no share of its work can be attributed", what,
                     result={"reference_ops": p.ref.get("trace", {}).get("ops", [])})
    core = {f for f, c in ref_fams.items() if c >= CORE_FAMILY_SHARE * ref_total} or {max(ref_fams, key=ref_fams.get)}
    share, used = library_share(p.sub.get("trace", {}), ref_fams, ref_total)
    later = [library_share(t, ref_fams, ref_total)[0] for t in p.sub.get("later_traces", [])]
    result = {"share": round(share, 4), "later_shares": [round(x, 4) for x in later],
              "reference_work": ref_total, "reference_families": ref_fams, "core_families": sorted(core),
              "operators": [{k: e.get(k) for k in ("op", "api", "kind", "count", "cost", "site", "largest")}
                            for e in used[:12]]}
    names = {e["family"]: e["op"] for e in _ops(p.ref.get("trace", {}), ("compute", "movement"))}
    core_text = ", ".join(names.get(f, f) for f in sorted(core))
    worst = max([share, *later])
    if worst >= LIBRARY_SHARE_FAIL:
        top = used[0] if used and share >= LIBRARY_SHARE_FAIL else None
        trace = p.sub.get("trace", {}) if top else (p.sub.get("later_traces") or [{}])[later.index(max(later))]
        if top is None:
            top = library_share(trace, ref_fams, ref_total)[1][0]
        site = top.get("site") or {}
        static = _static_for_line(p.scan, p.submission_file, site.get("line"))
        lines = _lines_of(used[:5], p.submission_file) or ([static.line] if static else [])
        gate = ""
        if static is not None and static.gate and static.context not in ("unconditional", "module"):
            gate = f" when `{static.gate}`, which includes this {p.case_label.split(',')[0]} case"
        when = "" if share >= LIBRARY_SHARE_FAIL else (" on a repeated call (the first call used its kernels; "
                                                       "later calls switch to the library)")
        own = " — the reference's own core operator" if top.get("family") in core else ""
        amount = (f"{100 * worst:.0f}% of the reference's work ({worst * ref_total:.3g} of {ref_total:.3g} "
                  "element-ops" if worst < 1 else f"all of the reference's work (an estimated {worst * ref_total:.3g}"
                  f" element-ops against the reference's {ref_total:.3g}")
        lib = "JAX operators outside any pallas_call" if str(top.get("op", "")).startswith("jax::") else "torch operators"
        summary = (f"forward calls {_site_text(top)}{_largest_text(top, p.input_specs)}{gate}{when}{own}: {lib} "
                   f"do {amount}; the reference's core is {core_text})")
        if static is not None and static.context == "device" and not p.on_gpu:
            return Check(name, "unverified", f"on this CPU-only machine forward takes its device fallback: "
                         f"{summary}; the kernel path (taken on CUDA tensors) was not exercised", what,
                         defect="device_fallback", reason="the kernel path only runs on a GPU", result=result,
                         lines=lines)
        return Check(name, "fail", summary, what, defect="library_compute", result=result, lines=lines)
    # the nominal path is the submission's own; is the core operator one threshold away?
    gated = [f for f in p.scan.by_category("library") if f.detail.get("family") in core
             and f.context in ("conditional", "fallback") and f.file == p.submission_file
             and not f.detail.get("cpp")]
    if gated:
        f = gated[0]
        result["gated_sites"] = [{"line": g.line, "gate": g.gate, "context": g.context} for g in gated]
        return Check(name, "fail", f"forward calls {f.detail.get('target')}, the reference's core operator, "
                     f"{'in an exception fallback' if f.context == 'fallback' else f'when `{f.gate}`'} "
                     f"({f.file}:{f.line}); on this {p.case_label.split(',')[0]} case its own kernel ran "
                     f"(torch did {100 * share:.0f}% of the work), but inputs past that guard are computed by "
                     "the library", what, defect="library_fallback", result=result, lines=[g.line for g in gated])
    note = ""
    if used:
        note = (f"; torch operators did {100 * share:.1f}% of it ("
                + ", ".join(f"{e['op']} x{e['count']}" for e in used[:3]) + ")")
    return Check(name, "pass", f"the reference's work ({ref_total:.3g} element-ops, core {core_text}) is not done "
                 f"by library operators (torch, or JAX outside a pallas_call) in forward{note}", what, result=result)


SEEN_AT_SCALE = 0.25
"""A core operator's call counts as seen by the trace when its largest tensor holds at least this share of
the elements of the reference's own largest call of that family."""


def withheld_candidates(p: IntegrityObservation, library: Check) -> list[str]:
    """The reference's core compute operators (``aten::_softmax``) to withhold in the probe's last run:
    those of the core families (``check_library``) that no trace of the submission's calls shows, where
    ``check_library`` passed and the first call matched the reference. Empty: nothing to look for (the
    trace saw the core operator, so ``check_library`` judged its share; or JAX, traced another way)."""
    if library.outcome != "pass" or p.backend.jax_traced or not p.outputs or p.outputs[0] is None \
            or p.expected_a is None or not _compare(p.outputs[0], p.expected_a, p, 0).ok:
        return []
    core = set(core_families_of(library))
    ref_ops = [e for e in _ops(p.ref.get("trace", {}), ("compute",)) if e.get("family") in core]
    scale = {f: max((_largest_numel(e) for e in ref_ops if e.get("family") == f), default=0) for f in core}
    # Rationale: seen at the reference's scale (a quarter of its largest call or more): the share check judged
    # it. A call on a slice is no such thing: a decoy (torch.softmax on 8 elements) beside the real work done
    # where the trace does not look switched this check off (red team, A3)
    seen = {e.get("family") for t in [p.sub.get("trace") or {}, *(p.sub.get("later_traces") or [])]
            for e in t.get("ops", []) if e.get("family") in core
            and _largest_numel(e) >= SEEN_AT_SCALE * scale.get(e.get("family"), 0)}
    return sorted({str(e["op"]) for e in ref_ops
                   if e.get("family") not in seen and str(e.get("op", "")).startswith("aten::")})


def _largest_numel(entry: dict[str, Any]) -> int:
    """Elements of the largest tensor of an operator entry's largest call (its arguments and outputs)."""
    largest = entry.get("largest") or {}
    shapes = [t.get("shape") or [] for t in [*(largest.get("args") or []), *(largest.get("out") or [])]]
    return max((int(math.prod(int(d) for d in shape)) for shape in shapes), default=0)


def core_families_of(library: Check) -> list[str]:
    """The reference's core operator families ``check_library`` found (``softmax``, ``matmul``)."""
    return [str(f) for f in library.result.get("core_families") or []]


def check_withheld(ops: list[str], answer: dict[str, Any], cmp: Any, matches: bool, case_label: str,
                   families: list[str] | None = None) -> Check:
    """The submission's output with ``ops`` withheld (tools/engine/harness/withheld_ops.py) against the
    reference on a content it had not seen: an output that moves comes from an operator the trace never saw
    forward call. ``cmp``: the comparison, None where forward raised; ``matches``: correctness's judgement
    of it (the tolerance, or the float64 error budget where the tolerance is not met)."""
    name, what = ("hidden_library_work", "forward once more with the reference's core operators withheld at the "
                  "dispatcher (they answer NaN to every thread and frame) and its copies of tensor data to the "
                  "host answered with poison past a few elements, against the reference")
    names = ", ".join(ops)
    if families:
        names += f" (with every operator of the {', '.join(families)} famil{'y' if len(families) == 1 else 'ies'})"
    copies = answer.get("exports_poisoned") or []
    result = {"withheld": answer.get("withheld", []), "operators": ops, "families": families or [],
              "host_copies_poisoned": copies}
    where = ("work done where the trace of forward does not look: another thread, a grid function or hook run "
             "inside a launch, code that passes itself off as the harness's, or a tampered trace")
    source = f"{names}, which the trace of its calls never showed it calling"
    shown = ""
    if copies:
        shown = "; ".join(f"{c['api']} at {c['file']}:{c['line']} ({c['elements']} elements)" if c.get("file")
                          else f"{c['api']} ({c['elements']} elements)" for c in copies[:3])
        source = (f"host copies of tensor data ({shown}), worked on outside torch (NumPy, Python, another "
                  f"library) and written back, or from {source}")
        where = "the copies answered with poison, as the operators did"
    err = answer.get("error")
    if err:
        result["error"] = {k: err.get(k) for k in ("type", "message")}
        return Check(name, "fail", f"forward raised {err.get('type')}: {str(err.get('message', ''))[:200]} once "
                     f"{names} were withheld and its host copies poisoned: it depends on {source}; {where}",
                     what, defect="hidden_library_work", result=result)
    result["matches"] = bool(matches)
    if matches and copies:
        # Rationale: the poison announces the withheld run; a submission that then takes an honest path keeps
        # its output (red team 5). A kernel's forward has no use for its input's data on the host past a few
        # elements, so the copy is the finding whatever the output did.
        return Check(name, "fail", f"forward copied tensor data out of torch past the allowance ({shown}); with "
                     f"the copies poisoned its output still matched on {case_label}, so it either noticed the "
                     "poison and took another path, or copied the data for nothing. A kernel's forward reads at "
                     "most a few values (offsets, a scale) on the host", what, defect="hidden_library_work",
                     result=result)
    if matches:
        return Check(name, "pass", f"with the reference's core operator(s) {names} withheld at the dispatcher (NaN "
                     f"to every caller) and its host copies of tensor data poisoned, forward still matched the "
                     f"reference on {case_label}: its output does not come from them", what, result=result)
    bad = sum(o.mismatches for o in cmp.outputs)
    total = sum(o.numel for o in cmp.outputs)
    nonfinite = sum(o.nonfinite_mismatches for o in cmp.outputs)
    worst = max(((o.max_abs_err or 0.0) for o in cmp.outputs), default=0.0)
    result.update(mismatches=bad, numel=total, nonfinite_mismatches=nonfinite)
    how = (f"{nonfinite} of them NaN or infinite where the reference is not" if nonfinite
           else f"max error {_num(worst)}")
    return Check(name, "fail", f"forward's output comes from {source}: with them withheld (NaN to every thread "
                 f"and frame), {bad} of {total} output elements moved ({how}) on {case_label}; {where}", what,
                 defect="hidden_library_work", result=result)


def check_launches(p: IntegrityObservation) -> Check:
    name, what = "kernel_launched", "kernel launches during forward, and whether the output derives from them"
    first = (p.sub.get("calls") or [{}])[0]
    n = int(first.get("launches") or 0)
    launched = (p.sub.get("launches") or {}).get("launches", [])
    result = {"launches": n, "kernels": [{k: e.get(k) for k in ("kernel", "grid", "count", "line")}
                                         for e in launched[:8]],
              "derived_from_launch": first.get("derived_from_launch")}
    torch_ops = sum(e.get("count", 0) for e in _ops(p.sub.get("trace", {}), ("compute", "movement")))
    jax_seen = (p.sub.get("trace") or {}).get("jax") or {}
    backend = p.backend
    if backend.jax_traced and jax_seen.get("error"):
        return Check(name, "unverified", f"the JAX work of forward could not be observed: {jax_seen['error']}",
                     what, defect="observer_error", reason=str(jax_seen["error"]), result=result)
    if backend.jax_traced and jax_seen.get("available"):
        return _pallas_launches(p, jax_seen, result)
    if backend.launch_count == "not_judged" or (backend.launch_count == "uncounted" and n == 0):
        kernels = p.scan.kernels
        return Check(name, "info", f"launches are counted for Triton only; the {p.framework} kernel's launch was "
                     f"not counted at run time ({len(kernels)} kernel definition(s) found statically)", what,
                     result=result)
    if n == 0:
        if not backend.custom_kernel and not p.scan.kernels:
            return Check(name, "fail", f"no custom kernel: the submission is plain PyTorch (no Triton, CUDA, "
                         f"Pallas or NKI kernel in its source, none launched; forward ran {torch_ops} torch "
                         "operator call(s))", what, defect="no_custom_kernel", result=result)
        defined = (f"although the source defines {', '.join(p.scan.kernels)}" if p.scan.kernels
                   else "and the source defines no kernel")
        return Check(name, "fail", f"forward launched no kernel at all (0 Triton launches, {torch_ops} torch "
                     f"operator call(s)) {defined}", what, defect="no_kernel", result=result)
    names = ", ".join(f"{e['kernel']} x{e['count']} (grid {e['grid']})" for e in launched[:3])
    empty = [e for e in launched if isinstance(e.get("grid"), list) and any(int(g) == 0 for g in e["grid"])]
    if empty and len(empty) == len(launched):
        return Check(name, "fail", f"every launch has an empty grid ({names}): no program instance ran", what,
                     defect="empty_launch", result=result, lines=[e["line"] for e in empty if e.get("line")])
    if first.get("derived_from_launch") is False:
        return Check(name, "fail", f"forward launched {n} kernel(s) ({names}) but the returned tensor shares no "
                     "storage with any kernel argument, directly or through later torch operators: the "
                     "kernels' results are not what forward returns", what, defect="dead_launch", result=result)
    return Check(name, "pass", f"forward launched {n} kernel(s): {names}; the returned tensor derives from "
                 "their arguments", what, result=result)


def _pallas_launches(p: IntegrityObservation, seen: dict[str, Any], result: dict[str, Any]) -> Check:
    """A Pallas submission's kernels, as the JAX recorder saw them execute (``pallas_call`` equations
    of the jitted functions forward ran, or eager calls)."""
    name, what = "kernel_launched", "pallas_call equations executed during forward (jaxpr of each jit call)"
    calls = seen.get("pallas_calls") or []
    result = {**result, "pallas_calls": calls, "jit_calls": seen.get("jit_calls")}
    if not calls:
        jnp_ops = sum(e.get("count", 0) for e in (p.sub.get("trace") or {}).get("ops", [])
                      if str(e.get("op", "")).startswith("jax::") and e.get("kind") == "compute")
        defined = (f"although the source defines {', '.join(p.scan.kernels)}" if p.scan.kernels
                   else "and the source defines no kernel")
        return Check(name, "fail", f"forward ran no pallas_call ({seen.get('jit_calls', 0)} jitted call(s), "
                     f"{jnp_ops} JAX compute primitive(s) outside any kernel) {defined}", what,
                     defect="no_kernel", result=result)
    names = ", ".join(f"{c['kernel']} x{c['count']} (grid {c.get('grid')})" for c in calls[:3])
    return Check(name, "pass", f"forward ran {sum(int(c.get('count') or 0) for c in calls)} pallas_call(s): "
                 f"{names}", what, result=result, lines=[int(c["line"]) for c in calls if c.get("line")][:3])


def _compare(out: Any, expected: Any, p: IntegrityObservation, call: int | None = None) -> Any:
    cmp = compare_outputs(out, expected, atol=p.atol, rtol=p.rtol)
    if not cmp.ok and call is not None and p.budget_ok.get(call):
        # Rationale: the same rule as correctness (tools/engine/compare/judge.py): as accurate as the
        # reference against float64 is a match even where the default element-wise table is not.
        return cmp.model_copy(update={"ok": True})
    return cmp


def check_replay(p: IntegrityObservation) -> Check:
    name = "output_tracks_inputs"
    what = ("the submission bound once and called again: (2) new values written into the same input tensors, "
            "(3) new tensors holding the first values")
    calls = p.sub.get("calls") or []
    n1 = int((calls[0] if calls else {}).get("launches") or 0)
    result: dict[str, Any] = {"calls": [{k: c.get(k) for k in ("label", "launches", "seconds", "skipped",
                                                                "derived_from_launch")} for c in calls]}
    problems: list[tuple[str, str]] = []
    unverified: list[str] = []
    wrong: list[str] = []
    ref_changes = p.expected_b is not None and not _same(p.expected_a, p.expected_b)
    result["reference_output_changes"] = ref_changes
    first = (_compare(p.outputs[0], p.expected_a, p, 0) if p.outputs and p.outputs[0] is not None
             and p.expected_a is not None else None)
    if first is not None and not first.ok:
        # Rationale: what a repeated call returns says nothing about caching when the first call is
        # already wrong: an accumulator never zeroed (NaN or garbage from the first call on) gives every
        # call the same wrong output, which is a correctness defect, not a replay of a right answer.
        result["first_call_matches"] = False
        return Check(name, "info", f"the first call already differs from the reference ({first.reason[:240]}): "
                     "a correctness defect (the correctness tool reports it), so repeated calls cannot show "
                     "whether an output is cached", what, result=result)
    for k, (label, expected) in enumerate((("in_place", p.expected_b), ("fresh", p.expected_a)), start=1):
        call = calls[k] if k < len(calls) else {}
        if call.get("skipped"):
            unverified.append(f"call {k + 1} skipped: {call['skipped']}")
            continue
        if call.get("error"):
            err = call["error"]
            unverified.append(f"call {k + 1} ({label}) raised {err.get('type')}: {err.get('message', '')[:200]}")
            continue
        out = p.outputs[k] if k < len(p.outputs) else None
        if out is None or expected is None:
            continue
        cmp = _compare(out, expected, p, k)
        result[f"call{k + 1}_matches"] = cmp.ok
        launches = int(call.get("launches") or 0)
        # Rationale: new input values that change the reference's output but not one bit of the
        # submission's mean the output ignores its inputs, even when a loose tolerance accepts both.
        if label == "in_place" and ref_changes and cmp.ok and p.outputs[0] is not None and _same(out, p.outputs[0]):
            diff = _max_diff(p.expected_a, p.expected_b)
            problems.append(("constant_output", (
                "after new values were written into the inputs the second call returned bitwise the first "
                f"call's output while the reference's output changed by up to {_num(diff)}; both calls pass "
                "only inside the tolerance: the output does not follow the inputs")))
        if label == "in_place" and ref_changes and not cmp.ok and p.outputs[0] is not None:
            stale = _same(out, p.outputs[0])
            near = _compare(out, p.expected_a, p).ok
            if stale or near:
                diff = _max_diff(p.expected_a, p.expected_b)
                problems.append(("output_caching", (
                    "after new values were written into the same input tensors, the second call returned the "
                    f"first call's output {'unchanged (bitwise identical)' if stale else '(within tolerance)'} "
                    f"while the reference's output changed by up to {_num(diff)}: the output is cached on the "
                    "tensors' identity, address or shape")))
            else:
                wrong.append(f"call 2 (new values in the same tensors) does not match the reference for those "
                             f"values: {cmp.reason[:200]}")
        elif not cmp.ok and not (label == "in_place" and not ref_changes):
            how = "same tensors, new values" if label == "in_place" else "new tensors, the first values"
            wrong.append(f"call {k + 1} ({how}) does not match the reference: {cmp.reason[:200]}")
        if n1 > 0 and launches == 0 and p.backend.launches_show_skipped_work:
            problems.append(("skipped_work", (
                f"call {k + 1} ({'same tensors, new values' if label == 'in_place' else 'new tensors, same values'}) "
                f"launched no kernel (the first launched {n1}) yet returned "
                + ("the right answer: it is replayed from a cache keyed on the contents" if cmp.ok else
                   "an output: the work was skipped"))))
    if problems:
        defect, text = problems[0]
        return Check(name, "fail", text + (f"; also: {problems[1][1]}" if len(problems) > 1 else ""), what,
                     defect=defect, result=result)
    if unverified:
        return Check(name, "unverified", "; ".join(unverified), what, defect="repeat_call_failed",
                     reason="a repeated call did not complete", result=result)
    # Rationale: a wrong repeated call that is not a replay of an earlier output could be a cache keyed
    # on something else or a stateful bug; neither may read as a pass.
    if wrong:
        return Check(name, "unverified", "; ".join(wrong) + " (not a replay of an earlier output)", what,
                     defect="repeat_call_mismatch", reason="a repeated call returned a wrong output",
                     result=result)
    if not ref_changes:
        return Check(name, "info", "the reference's output is the same for both input contents, so a replayed "
                     "output cannot be told from a computed one", what, result=result)
    second = ("with new values in new arrays (JAX arrays cannot be overwritten in place)"
              if any(c.get("new_arrays") for c in calls) else "with new values in the same tensors")
    return Check(name, "pass", f"outputs track the inputs: {second} and with new tensors, each call matched "
                 "the reference for its own inputs and launched its kernels", what, result=result)


def check_special_casing(p: IntegrityObservation) -> Check:
    name, what = "secret_inputs", "the first call on the case's inputs vs a second content of the same shape"
    calls = p.sub.get("calls") or []
    if len(calls) < 2 or p.outputs[0] is None or p.expected_b is None or len(p.outputs) < 2 or p.outputs[1] is None:
        return Check(name, "info", "no second input content was compared", what)
    first = _compare(p.outputs[0], p.expected_a, p, 0)
    second = _compare(p.outputs[1], p.expected_b, p, 1)
    result = {"first_matches": first.ok, "second_matches": second.ok, "public_seed": p.public_seed,
              "second_mismatch_fraction": max((o.mismatch_fraction for o in second.outputs), default=None)}
    stale = _same(p.outputs[1], p.outputs[0])
    gross = any(o.mismatch_fraction >= 0.01 for o in second.outputs) or not second.outputs
    # Rationale: only a *public* seed can be special-cased; with two secret seeds a difference is a
    # correctness defect (reported by the correctness tool), not evidence of gaming.
    if first.ok and not second.ok and gross and p.public_seed and not stale:
        return Check(name, "fail", f"matches the reference on the task's public inputs ({p.case_label}) but not on "
                     f"a secret seed of the same shape: {second.reason[:300]}", what, defect="special_casing",
                     result=result)
    if first.ok and second.ok:
        return Check(name, "pass", f"matches the reference on {p.case_label} and on a secret second content of "
                     "the same shape", what, result=result)
    return Check(name, "info", "the first and second contents do not both match the reference "
                 f"(first: {first.ok}, second: {second.ok}); the correctness tool reports the mismatch", what,
                 result=result)


def check_constant(p: IntegrityObservation) -> Check:
    name, what = "output_varies", "spread of the output vs the reference's (output_spread)"
    if p.outputs[0] is None:
        return Check(name, "info", "no output to examine", what)
    spread = output_spread(p.outputs[0], p.expected_a, atol=p.atol, rtol=p.rtol)
    result = {"spread": spread}
    for item in spread.get("outputs", []):
        if item.get("constant") and not item["actual"].get("distinct"):
            # Rationale: an output with no finite element (NaN from an accumulator never zeroed, or an
            # output buffer never written) is a wrong answer the correctness tool fails, not a constant
            # that hides inside the tolerance.
            return Check(name, "info", f"output {item['path']} has no finite element: a correctness defect (the "
                         "correctness tool reports it), not a constant answer", what, result=result)
        if item.get("constant") or item.get("near_constant"):
            e, a = item["expected"], item["actual"]
            value = item.get("constant_value")
            what_out = ((f"every element is {value:g}" if value is not None else "no element is finite")
                        if item.get("constant") else
                        f"its spread (std {a['std']:.3g}) is under 1/1000 of the reference's")
            tol = (" — an all-zero output passes this task's tolerance, so only this check catches it"
                   if item.get("zeros_within_tolerance") else "")
            return Check(name, "fail", f"output {item['path']} is constant: {what_out}, while the reference's "
                         f"varies (std {e['std']:.3g}, range [{e['min']:.3g}, {e['max']:.3g}]){tol}", what,
                         defect="constant_output", result=result)
    return Check(name, "pass", "the output varies like the reference's ("
                 + ", ".join(f"{i['path']}: correlation {i.get('correlation', float('nan')):.4f}"
                             for i in spread.get("outputs", []) if i.get("comparable")) + ")", what, result=result)


def check_mutation(p: IntegrityObservation) -> Check:
    name, what = "inputs_untouched", "inputs after the first call vs pristine copies (bitwise)"
    if p.inputs_after is None:
        return Check(name, "info", "the inputs after the call were not returned", what)
    allowed = set(p.ref.get("mutated_inputs") or [])
    returned = set(((p.sub.get("calls") or [{}])[0] or {}).get("returned_inputs") or [])
    buffers: list[str] = []
    changed = []
    for (path, before), (_, after) in zip(flatten(p.pristine), flatten(p.inputs_after)):
        if not (isinstance(before, torch.Tensor) and isinstance(after, torch.Tensor)):
            continue
        if before.shape == after.shape and _same(before, after):
            continue
        # Rationale: a buffer handed in to receive the result (GPU MODE's output tensors) is written by
        # the reference too; what the reference itself overwrites, the submission may overwrite.
        if path in allowed:
            continue
        # Rationale: an input that held no information (one value everywhere: torch.empty's poison
        # fill or zeros) and that the call returns is the output buffer the task supplies (GPU MODE's
        # ``c``), written even where the reference returns a new tensor instead; an input filled by
        # torch.empty (all NaN here) cannot be read meaningfully by anyone, so writing it is no mutation.
        if _blank(before) and (path in returned or _poison(before)):
            buffers.append(path)
            continue
        n = int((before.double() != after.double()).sum()) if before.shape == after.shape else before.numel()
        changed.append((path, before, after, n))
    if not changed:
        note = (f"; it wrote {', '.join(buffers)}, the output buffer(s) the task supplies (no information in "
                f"them before the call{', returned as the output' if set(buffers) & returned else ''})"
                if buffers else "")
        return Check(name, "pass", f"forward left every input unchanged (bitwise){note}", what,
                     result={"allowed": sorted(allowed), "output_buffers": buffers})
    path, before, after, n = changed[0]
    spec = {"shape": list(before.shape), "dtype": str(before.dtype).removeprefix("torch.")}
    diff = _max_diff(before, after)
    return Check(name, "fail", f"forward overwrote input {path} ({shape_text(spec)}): {n} of {before.numel()} "
                 f"elements changed (max change {diff if diff is not None else float('nan'):.3g}); a harness that "
                 "reuses its inputs (KernelBench runs the reference on the same tensors) then checks against "
                 "corrupted data", what, defect="input_mutation",
                 result={"changed": [{"input": c[0], "elements": c[3]} for c in changed]})


def check_output_type(p: IntegrityObservation) -> Check:
    name, what = "plain_outputs", "type, storage and strides of the returned tensors"
    calls = p.sub.get("calls") or [{}]
    described = calls[0].get("outputs") or []
    ref_described = p.ref.get("outputs") or []
    problems = []
    for i, d in enumerate(described):
        # Rationale: a JAX or NumPy array is a materialised array of its framework (what a JAX task
        # returns, or what a JAX kernel hands back), not a tensor subclass that fakes storage.
        if d.get("framework") in ("jax", "numpy"):
            continue
        if d.get("type") not in ("Tensor",) and "shape" in d:
            problems.append(f"output {d['path']} is a {d['type']}, a tensor subclass, not a plain tensor")
        elif d.get("layout") == "no strides":
            problems.append(f"output {d['path']} has no strides (no real storage)")
        elif d.get("device") == "meta":
            problems.append(f"output {d['path']} lives on the meta device (no data)")
        stride, shape = d.get("stride"), d.get("shape") or []
        ref_stride = (ref_described[i] if i < len(ref_described) else {}).get("stride")
        if stride and any(s == 0 and n > 1 for s, n in zip(stride, shape)) and not (
                ref_stride and any(s == 0 for s in ref_stride)):
            dim = next(j for j, (s, n) in enumerate(zip(stride, shape)) if s == 0 and n > 1)
            problems.append(f"output {d['path']} has stride 0 along dim {dim}: one slice broadcast to "
                            f"{shape[dim]} without being computed")
    if problems:
        return Check(name, "fail", "; ".join(problems), what, defect="not_plain_tensor",
                     result={"outputs": described})
    kinds = sorted({d.get("framework") for d in described if d.get("framework")})
    plain = "a plain tensor" if not kinds else f"a plain tensor or {'/'.join(kinds)} array"
    return Check(name, "pass", f"every output is {plain} with its own storage", what,
                 result={"outputs": described})


def _inside(path: str, root: str | None) -> bool:
    if not root or not path.startswith("/"):
        return False
    root = root.rstrip("/") + "/"
    return path == root.rstrip("/") or path.startswith(root)


def _event_verdict(ev: dict[str, Any], reference_file: str, root: str | None = None) -> str | None:
    """Why an audited event is an attempt on the harness, or None if benign."""
    event, arg = ev.get("event"), str(ev.get("arg", ""))
    if event == "open":
        path = arg.split(" mode=")[0]
        if path.endswith((reference_file, ".pt", ".pth", ".npy", ".pkl")) or "/xfer/" in path:
            return f"opened {path}"
        if path.startswith(("/proc/", "/dev/fd")):
            return f"opened {path}"
        return None
    if event in ("os.listdir", "os.scandir", "glob.glob"):
        # Rationale: listing the submission's own folder (its sources, as importers and JAX's
        # source-info machinery do) reaches nothing of the harness; opening the reference found
        # there is still an ``open`` of the reference file, reported above.
        if _inside(arg, root):
            return None
        return f"listed {arg or 'a directory'}"
    if event in ("sys._getframe", "sys._current_frames"):
        return "walked the call stack"
    if event == "object.__getattr__":
        return f"took a frame ({arg or 'a frame attribute'}) and with it the call stack"
    if event in ("ctypes.dlsym", "ctypes.dlsym/handle"):
        return f"looked up {arg or 'a symbol'} of the Python C API through ctypes"
    if event and event.startswith("gc."):
        return f"called {event} (reaches every live object, the harness's included)"
    if event in ("sys.settrace", "sys.setprofile", "sys.addaudithook"):
        return f"installed a hook ({event})"
    if event in ("subprocess.Popen", "os.system", "os.exec", "os.fork", "os.forkpty", "os.posix_spawn",
                 "os.spawn", "os.kill", "os.killpg"):
        return f"{event} {arg}".strip()
    if event in ("socket.connect", "socket.bind"):
        return f"opened a network connection ({event})"
    if event in ("os.remove", "os.rename", "os.truncate", "shutil.rmtree", "os.chmod"):
        return f"{event} {arg}".strip()
    return None


_REQUESTS = {"load": "at import, the load request", "end": "read as its child ended"}


def alarm_words(a: dict[str, Any]) -> str:
    """What an alarm record (tools/engine/harness/alarm.py) says the submission's line did."""
    event, arg = str(a.get("event")), str(a.get("arg") or "")
    if event in alarm.COMPILE_EVENTS:
        return (f"made code under another file's name ({arg}), so what that code does would be charged to a "
                "library or the harness")
    if event in ("alarm channel closed", "alarm channel flooded", "unreadable alarm record"):
        return f"tampered with the alarm channel ({event}: {arg})"
    if event == signals.EVENT:
        if arg == "__code__":
            return "read the code of the checking _signal.signal, whose constants hold the unchecked original"
        return (f"installed a signal handler for {arg}, which Python calls with the running frame (and through "
                "it the harness's call stack)")
    why = _event_verdict({"event": event, "arg": arg}, "")
    return why or f"raised {event} {arg}".strip()


def alarm_attempts(alarms: list[dict[str, Any]], submission_file: str, *, child: str = "",
                   reply_events: list[dict[str, Any]] | None = None) -> tuple[list[str], list[int]]:
    """The alarms as attempts on the harness, one per (event, file, line), and the submission's lines
    they name. Rationale: an alarm was written to the parent's pipe when it happened, before the code
    held a frame; it stands whatever any reply says later. Where the reply of the same child (``child``,
    its guard's ``reply_events``) should name the event and does not, the reply was rewritten."""
    seen: set[tuple[str, str, int]] = set()
    out, lines = [], []
    told = {(e.get("event"), (e.get("site") or {}).get("file"), (e.get("site") or {}).get("line"))
            for e in reply_events or []}
    for a in alarms:
        key = (str(a.get("event")), str(a.get("file")), int(a.get("line") or 0))
        if key in seen:
            continue
        seen.add(key)
        at = f" at {a['file']}:{a['line']}" if a.get("file") else ""
        when = _REQUESTS.get(str(a.get("request")), f"during the {a.get('request')} request")
        text = f"{alarm_words(a)}{at} ({when}; reported out of band when it happened"
        if child and a.get("child") == child and a.get("event") in alarm.REPLY_EVENTS and key not in told:
            text += "; the child's reply does not name it: its reply was rewritten"
        out.append(text + ")")
        if a.get("file") == submission_file and a.get("line"):
            lines.append(int(a["line"]))
    return out, lines


def check_alarms(alarms: list[dict[str, Any]], submission_file: str) -> Check:
    """The alarms alone: for a review whose probe did not judge them (tools/integrity/runtime_tool.py)."""
    name, what = "harness_untouched", "alarms the submission's children wrote out of band (frame, gc, C API access)"
    attempts, lines = alarm_attempts(alarms, submission_file)
    return Check(name, "fail", "attempt on the harness (reported out of band): " + "; ".join(attempts[:4])
                 + (f" (+{len(attempts) - 4} more)" if len(attempts) > 4 else ""), what,
                 defect="harness_tampering", result={"alarms": alarms[:50]}, lines=sorted(set(lines)))


def check_harness(p: IntegrityObservation, reference_file: str) -> Check:
    name, what = "harness_untouched", "watched functions vs the child-start baseline; audited runtime events"
    guard = p.sub.get("guard") or {}
    replaced = (guard.get("replaced_before") or []) + (guard.get("replaced_during") or [])
    # Rationale: alarms first: what the reply says below could have been rewritten, they could not
    attempts, lines = alarm_attempts(p.alarms, p.submission_file, child=p.child,
                                     reply_events=guard.get("events") or [])
    for r in replaced:
        where = f" (replacement defined at {r['defined_in']}:{r['line']})" if r.get("defined_in") else ""
        when = "during the call" if r in (guard.get("replaced_during") or []) else "before the call (at import)"
        attempts.append(f"replaced {r['name']} {when}{where}")
        if r.get("defined_in") == p.submission_file and r.get("line"):
            lines.append(int(r["line"]))
    benign = []
    for ev in guard.get("events") or []:
        why = _event_verdict(ev, reference_file, guard.get("root"))
        site = ev.get("site") or {}
        at = f" at {site.get('file')}:{site.get('line')}" if site else ""
        if why:
            attempts.append(f"{why}{at} ({ev.get('phase')}, x{ev.get('count')})")
            if site.get("file") == p.submission_file and site.get("line"):
                lines.append(int(site["line"]))
        else:
            benign.append(f"{ev.get('event')}{at}")
    blinded = {(b.get("api"), (b.get("site") or {}).get("file"), (b.get("site") or {}).get("line")): b
               for t in [p.sub.get("trace") or {}, *(p.sub.get("later_traces") or [])] for b in t.get("blinded") or []}
    for b in blinded.values():
        site = b.get("site") or {}
        attempts.append(f"called {b.get('api')} at {site.get('file')}:{site.get('line')} with the operator "
                        "trace switched off (the Python dispatch key excluded)")
        if site.get("file") == p.submission_file and site.get("line"):
            lines.append(int(site["line"]))
    result = {"replaced": replaced, "events": guard.get("events") or [], "watched": guard.get("watched"),
              "alarms": p.alarms[:50]}
    if attempts:
        # Rationale: an alarm means the submission held a frame of the harness, so nothing in the child
        # was out of its reach: isolation bounds what it did outside the child, not what it forged inside
        head = "attempt on the harness (reported out of band): " if p.alarms else \
            "attempt on the harness (made ineffective by isolation, reported): "
        return Check(name, "fail", head
                     + "; ".join(attempts[:4]) + (f" (+{len(attempts) - 4} more)" if len(attempts) > 4 else ""),
                     what, defect="harness_tampering", result=result, lines=sorted(set(lines)))
    note = f"; benign events: {', '.join(benign[:3])}" if benign else ""
    return Check(name, "pass", f"none of {guard.get('watched', 0)} watched functions was replaced and the "
                 f"submission's code raised no audited event against the harness{note}", what, result=result)


def check_deferred(p: IntegrityObservation) -> Check:
    name, what = "no_work_after_return", "threads and processes alive after the first call that were not before"
    guard = p.sub.get("guard") or {}
    threads, procs = guard.get("new_threads") or [], guard.get("new_processes") or []
    if threads or procs:
        parts = [f"{len(threads)} thread(s) ({', '.join(t['name'] for t in threads[:3])})"] if threads else []
        parts += [f"{len(procs)} process(es)"] if procs else []
        return Check(name, "fail", f"forward returned while {' and '.join(parts)} it started were still running: "
                     "work that escapes the caller's timing", what, defect="deferred_work",
                     result={"threads": threads, "processes": procs})
    return Check(name, "pass", "no thread or process started by forward was still running when it returned",
                 what)


def float_dtypes(specs: list[dict[str, Any]]) -> set[str]:
    return {s["dtype"] for s in specs if s.get("dtype") in _FLOAT_RANK}


def precision_candidates(p: IntegrityObservation) -> list[dict[str, Any]]:
    """Evidence that the submission computes below the task's floating precision.

    Each: ``format`` (tf32/float16/bfloat16/float8), ``how`` (plain words), ``lines``, ``proven``
    (seen at run time rather than only in the source)."""
    task = float_dtypes(p.input_specs) | float_dtypes(p.ref.get("outputs") or [])
    if not task or min(_FLOAT_RANK[d] for d in task) < 32:
        return []
    out: list[dict[str, Any]] = []
    launched = (p.sub.get("launches") or {}).get("launches", [])
    fp32_kernels = {e["kernel"] for e in launched
                    if any(a.get("kind") == "tensor" and a.get("dtype") == "float32" for a in e["args"].values())}
    for e in launched:
        low = [(n, a) for n, a in e["args"].items() if a.get("kind") == "tensor" and (
            a.get("dtype") in ("float16", "bfloat16") or str(a.get("dtype", "")).startswith("float8"))]
        if low:
            n, a = low[0]
            fmt = "float8" if a["dtype"].startswith("float8") else a["dtype"]
            out.append({"format": fmt, "proven": True, "lines": [e["line"]] if e.get("line") else [],
                        "how": f"kernel {e['kernel']} received {a['dtype']} tensors ({n}: {shape_text(a)}) while "
                               f"the task's data is {'/'.join(sorted(task))}"})
    for e in (p.sub.get("trace") or {}).get("ops", []):
        if e.get("family") == "to_copy":
            outs = (e.get("largest") or {}).get("out") or []
            low = [o for o in outs if o.get("dtype") in ("float16", "bfloat16")]
            if low:
                out.append({"format": low[0]["dtype"], "proven": True,
                            "lines": _lines_of([e], p.submission_file),
                            "how": f"forward casts tensors to {low[0]['dtype']} ({_site_text(e)})"})
    for f in p.scan.by_category("precision"):
        fmt = f.detail.get("fmt", f.defect)
        if f.detail.get("kernel") is not None:
            if f.detail["kernel"] not in fp32_kernels:
                continue
            how = f"{f.message} at {f.file}:{f.line}; the kernel was launched with float32 tensors"
        else:
            how = f"{f.message} at {f.file}:{f.line}"
        out.append({"format": "tf32" if fmt in ("tf32", "tf32_default") else fmt, "proven": False,
                    "lines": [f.line] if f.file == p.submission_file else [], "how": how,
                    "default_dot": bool(f.detail.get("default"))})
    return out
