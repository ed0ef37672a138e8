"""Differences in behaviour between implementations of one task: each runs in its own sandbox
session (its own reference and submission children, never the reviewer's process) on the same
case; two implementations *disagree* on a case when their outputs differ beyond the task's
tolerance, or when one answers and the other fails. Float64 is the judge where both are inexact:
the reference evaluated in float64 on the same inputs says which of the two is closer. A
disagreement is shrunk (tools/engine/shrink.py, hypothesis) to the smallest case that still shows
it: sizes first (the size knobs, smaller values first), then values (simpler inputs of the same
shape, tools/engine/harness/transforms.py ``simplify_values``).

Used by ``kreview compare`` (every pair of implementations) and the port tool (a port against the
original it names in kreview.toml, ``[port] original``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import torch
from pydantic import BaseModel, ConfigDict, Field

from reviewer.core.models import Evidence
from tools.engine.nominal_run import size_knobs_of
from tools.engine.compare import compare_outputs, error_budget
from tools.engine.evaluate import exact_outputs
from tools.engine.harness.case import Case, Transform
from tools.engine.harness.tensors import flatten
from tools.engine.harness.transforms import SIMPLE_VALUES
from tools.engine.outcomes import classify_failure, deliberate_rejection, input_elements
from tools.engine.shrink import Dim, shrink
from tools.engine.sizes import candidates, source_blocks
from tools.engine.registry import case_sources
from tools.engine.tool import ToolContext

# Rationale: a handful of values per size knob keeps a shrink to a few dozen sandboxed calls per
# implementation; the smallest sizes and one either side of every block size find tails.
_MAX_SIZE_VALUES = 10
_SHRINK_EXAMPLES = 30
# Rationale: a port must keep its original's precision. Correct reorderings of a reduction measured
# 0.4-7x the reference's float64 error (tools/engine/compare/budget.py); a port whose error is more
# than 8x its original's on the same inputs computes with less precision than the original did.
PORT_PRECISION_FACTOR = 8.0
# Rationale: a run is kept for the other pairs only when its outputs are small (40 cases x 3
# implementations stay within a few hundred MB of the reviewer's memory).
_CACHE_BYTES = 2 * 2**20


@dataclass
class Side:
    """One implementation: its name (its directory's) and a tool context whose session runs it."""

    name: str
    ctx: ToolContext
    runs: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    """Its runs by case (the same case runs once however many pairs it is in)."""


def digest(value: Any) -> str:
    """sha256 over every leaf's path, dtype, shape and bytes: equal digests mean bitwise-equal values
    (what a rerun must reproduce)."""
    h = hashlib.sha256()
    for path, leaf in flatten(value if isinstance(value, (list, tuple)) else [value]):
        h.update(path.encode())
        if isinstance(leaf, torch.Tensor):
            t = leaf.detach().cpu().contiguous()
            h.update(f"{t.dtype}{tuple(t.shape)}".encode())
            h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
        else:
            h.update(repr(leaf).encode())
    return h.hexdigest()[:16]


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SideRun(_M):
    name: str
    status: Literal["ok", "failed", "refused", "inconclusive", "reference_failed"]
    """``refused``: failed by a raise/assert of its own file (a deliberate rejection, tools/engine/outcomes.py);
    ``inconclusive``: a failure tools/engine/outcomes.py classifies as unverified (environment, too slow to
    tell): never a difference in behaviour."""
    error: str = ""
    output_digest: str | None = None
    input_digest: str | None = None
    float64_max_err: float | None = None
    float64_rms_err: float | None = None
    float64_ratio: float | None = None
    """Max/RMS error against float64, as a multiple of the task reference's own (tools/engine/compare/budget.py)."""


class CaseCheck(_M):
    """Two implementations on one case."""

    case: dict[str, Any]
    label: str = ""
    input_elements: int = 0
    sides: list[SideRun]
    disagree: bool
    kind: Literal["agree", "outputs", "precision", "failure", "refusal", "inputs_differ", "not_run"]
    """``precision``: within tolerance of each other, but the second's error against float64 is more
    than ``precision_factor`` times the first's (a port that lost precision its original had)."""
    detail: str = ""
    max_abs_diff: float | None = None
    mismatches: int = 0
    numel: int = 0
    worst: list[dict[str, Any]] = Field(default_factory=list)
    closer_to_float64: str | None = None
    judge: str = ""


class PairReport(_M):
    """Two implementations over a list of cases: how often they disagree, and the smallest case found."""

    names: list[str]
    """The two implementations; with an original (a port), the original first."""
    original: str | None = None
    cases_checked: int = 0
    cases_disagreeing: int = 0
    cases_bitwise_equal: int = 0
    cases_not_comparable: int = 0
    cases_refused: dict[str, int] = Field(default_factory=dict)
    """Cases each implementation refused with its own raise/assert while the other answered: a narrower
    contract, not a disagreement (an example in ``refusal``)."""
    refusal: str = ""
    found_on: dict[str, Any] | None = None
    """The case (of those checked) the smallest disagreement was shrunk from."""
    shrunk: bool = False
    shrink_tried: int = 0
    smallest: CaseCheck | None = None
    """The smallest case that still shows the disagreement, checked again there with the float64 judge."""
    summary: str = ""
    rerun: str = ""


def cases_in(evidence: list[Evidence], tools: Sequence[str] | None = None) -> list[Case]:
    """The configurations the tools whose cases are replayed ran (``tools``, default
    ``registry.case_sources()``: those with ``Tool.replays_cases``): their evidence's ``inputs.case``
    and a search's tried cases, de-duplicated, tool by tool in that order, in recorded order.

    A configuration the tool ran only in part (``config.windowed``: a window of a large grid's programs
    under the interpreter, tools/engine/harness/instruments/grid_window.py) is not replayed: its outputs
    were never an answer, and running it whole costs a minute a side under the interpreter."""
    found: list[Case] = []
    seen: set[str] = set()
    for tool in (case_sources() if tools is None else tools):
        for e in evidence:
            if e.tool != tool or (e.config or {}).get("windowed"):
                continue
            raw = [(e.inputs or {}).get("case")]
            raw += [t.get("case") for t in ((e.result or {}).get("search") or {}).get("tried", [])
                    if t.get("verdict") in ("pass", "fail")]
            for r in raw:
                if r is None:
                    continue
                try:
                    case = Case.model_validate_json(r) if isinstance(r, str) else Case.model_validate(r)
                except ValueError:
                    continue
                key = case.model_dump_json(exclude={"id", "label"})
                if case.reference_dtype is None and key not in seen:
                    seen.add(key)
                    found.append(case)
    return found


def _one(side: Side, case: Case) -> tuple[SideRun, Any, Any, Any]:
    """(record, reference outputs, submission outputs, reference meta) of ``side`` on ``case``, run once."""
    key = case.model_dump_json(exclude={"id", "label"})
    if key in side.runs:
        rec, ref_out, out, meta = side.runs[key]
        return rec.model_copy(), ref_out, out, meta
    got = _run(side, case)
    if _nbytes(got[1]) + _nbytes(got[2]) <= _CACHE_BYTES:
        side.runs[key] = got
    return got[0].model_copy(), *got[1:]


def _nbytes(value: Any) -> int:
    if value is None:
        return 0
    return sum(t.numel() * t.element_size() for _, t in flatten(value if isinstance(value, (list, tuple)) else [value])
               if isinstance(t, torch.Tensor))


def _run(side: Side, case: Case) -> tuple[SideRun, Any, Any, Any]:
    ref = side.ctx.session.reference(case)
    if not ref.ok:
        return SideRun(name=side.name, status="reference_failed", error=ref.call.failure_text()[:300]), None, None, None
    inputs = side.ctx.session.load_tensors(ref.parent_inputs or ref.inputs_path)
    run = side.ctx.session.run_submission(case, ref, keep_inputs_after=False)
    rec = SideRun(name=side.name, status="ok" if run.ok else "failed", input_digest=digest(inputs))
    if not run.ok:
        rec.error = run.call.failure_text()[:300]
        sub = side.ctx.submission
        if run.loaded and (why := deliberate_rejection(run.call, sub.submission_file, side.ctx.source.text)):
            rec.status, rec.error = "refused", why[:300]
        else:
            c = classify_failure(run.call, interpreted=side.ctx.setup.interpreted, input_numel=input_elements(ref.meta),
                                 on_cpu=not side.ctx.device.has_gpu, stage=f"the call on {case.label or case.id}",
                                 timeout_s=side.ctx.options.limits.call_timeout_s)
            if c.outcome == "unverified":
                rec.status, rec.error = "inconclusive", c.reason[:300]
        return rec, ref.outputs, None, ref.meta
    rec.output_digest = digest(run.outputs)
    return rec, ref.outputs, run.outputs, ref.meta


def _judge(side_a: Side, case: Case, ref_out: Any, runs: list[tuple[SideRun, Any]]) -> tuple[str | None, str]:
    """Which side is closer to the reference evaluated in float64 (None and why when it cannot say)."""
    exact, why = exact_outputs(side_a.ctx, case)
    if exact is None:
        return None, f"no float64 judge: {why}"
    for rec, out in runs:
        b = error_budget(out, ref_out, exact)
        if not b.available or not b.outputs:
            return None, f"no float64 judge: {b.reason}"
        worst = max(b.outputs, key=lambda o: o.ratio)
        rec.float64_max_err = max(o.sub_max_err for o in b.outputs)
        rec.float64_rms_err = max(o.sub_rms_err for o in b.outputs)
        rec.float64_ratio = round(worst.ratio, 4)
    (ra, _), (rb, _) = runs
    ka = (ra.float64_max_err, ra.float64_rms_err)
    kb = (rb.float64_max_err, rb.float64_rms_err)
    if ka == kb:
        return None, "float64 judge: both are equally far from float64"
    closer, farther = (ra, rb) if ka < kb else (rb, ra)
    return closer.name, (f"float64 judge: {closer.name} is closer (max error {closer.float64_max_err:.3g} vs "
                         f"{farther.float64_max_err:.3g}, rms {closer.float64_rms_err:.3g} vs "
                         f"{farther.float64_rms_err:.3g})")


def check_case(a: Side, b: Side, case: Case, *, judge: bool = True, precision_factor: float | None = None) -> CaseCheck:
    """Run ``a`` and ``b`` on ``case`` and say whether they disagree (outputs compared with ``a``'s
    tolerance, ``a`` as expected); with ``judge``, float64 says which is closer. With
    ``precision_factor`` (a port against its original ``a``), outputs within tolerance that are not
    bitwise equal also disagree when ``b``'s error against float64 exceeds that many times ``a``'s
    (tools/engine/compare/budget.py's ratio with ``a`` as the expected output)."""
    ra, ref_a, out_a, meta = _one(a, case)
    rb, _, out_b, _ = _one(b, case)
    common = {"case": case.model_dump(exclude_defaults=True), "label": case.label, "sides": [ra, rb],
              "input_elements": input_elements(meta) if meta else 0}
    if "reference_failed" in (ra.status, rb.status):
        return CaseCheck(**common, disagree=False, kind="not_run", detail="the reference fails on this case")
    if "inconclusive" in (ra.status, rb.status):
        bad = ra if ra.status == "inconclusive" else rb
        return CaseCheck(**common, disagree=False, kind="not_run", detail=f"{bad.name} could not be concluded: {bad.error}")
    if ra.input_digest != rb.input_digest:
        return CaseCheck(**common, disagree=False, kind="inputs_differ",
                         detail="the two references made different inputs from this case (different tasks?)")
    if {ra.status, rb.status} == {"ok", "refused"}:
        bad = ra if ra.status == "refused" else rb
        return CaseCheck(**common, disagree=False, kind="refusal",
                         detail=f"{bad.name} refuses it with its own error where the other answers: {bad.error[:200]}")
    if ra.status != rb.status:
        bad = ra if ra.status != "ok" else rb
        return CaseCheck(**common, disagree=True, kind="failure",
                         detail=f"{bad.name} fails where the other answers: {bad.error[:200]}")
    if ra.status != "ok":
        return CaseCheck(**common, disagree=False, kind="agree", detail="both fail or refuse")
    atol, rtol = a.ctx.tolerance()
    if case.dtype is not None and case.dtype != a.ctx.submission.dtype:
        atol, rtol = None, None  # another dtype than the task's: that dtype's defaults
    cmp = compare_outputs(out_b, out_a, atol=atol, rtol=rtol)
    check = CaseCheck(**common, disagree=not cmp.ok, kind="agree" if cmp.ok else "outputs",
                      detail=cmp.reason if not cmp.ok else "within tolerance of each other"
                      + (" (bitwise equal)" if ra.output_digest == rb.output_digest else ""),
                      max_abs_diff=max((o.max_abs_err or 0.0 for o in cmp.outputs), default=None),
                      mismatches=sum(o.mismatches for o in cmp.outputs), numel=sum(o.numel for o in cmp.outputs),
                      worst=[w for o in cmp.outputs for w in o.worst][:3])
    if precision_factor is not None and not check.disagree and ra.output_digest != rb.output_digest:
        exact, why = exact_outputs(a.ctx, case)
        budget = error_budget(out_b, out_a, exact) if exact is not None else None
        if budget is not None and budget.available and budget.ratio is not None and budget.ratio > precision_factor:
            check.disagree, check.kind = True, "precision"
            check.detail = (f"within tolerance of each other, but {b.name}'s error against float64 is "
                            f"{budget.ratio:.3g}x {a.name}'s (more than {precision_factor:g}x): {budget.describe()}")
    if judge and (check.disagree or ra.output_digest != rb.output_digest):
        check.closer_to_float64, check.judge = _judge(a, case, ref_a, [(ra, out_a), (rb, out_b)])
    return check


def _size_values(value: int, blocks: set[int]) -> list[int]:
    below = {v for v in candidates(value, blocks) if v < value}
    below |= {value >> k for k in range(1, 12) if value >> k >= 1}
    picked = sorted(below)
    if len(picked) > _MAX_SIZE_VALUES:
        # keep the smallest few and those nearest the failing value
        picked = picked[:_MAX_SIZE_VALUES // 2] + picked[-(_MAX_SIZE_VALUES - _MAX_SIZE_VALUES // 2):]
    return [*picked, value]


def with_values(case: Case, level: str | None) -> Case:
    """``case`` with simpler input values (before every layout transform), or unchanged for None."""
    if level is None:
        return case
    rest = [t for t in case.transforms if t.kind != "simplify_values"]
    return case.model_copy(update={"transforms": [Transform(kind="simplify_values", args={"level": level}), *rest]})


def shrink_disagreement(a: Side, b: Side, case: Case, *, rng_seed: int, precision_factor: float | None = None,
                        progress: Callable[[str], None] | None = None) -> tuple[Case, bool, int]:
    """The smallest case still showing ``a`` and ``b``'s disagreement on ``case``: sizes first, then
    values. Returns (case, whether it shrank, how many cases were tried)."""
    knobs = size_knobs_of(a.ctx, dict(case.params))
    current = {k: int(case.params.get(k, v)) for k, v in knobs.items()}
    blocks = source_blocks(a.ctx.source.text) | source_blocks(b.ctx.source.text)
    tried = 0

    def sized(cfg: dict[str, Any]) -> Case:
        changed = {k: v for k, v in cfg.items() if k in case.params or v != knobs[k]}
        return case.model_copy(update={"id": "compare-shrink", "params": {**case.params, **changed},
                                       "label": _label(case, cfg)})

    def disagrees(c: Case) -> bool:
        if progress is not None:
            progress(c.spec())
        return check_case(a, b, c, judge=False, precision_factor=precision_factor).disagree

    out = case
    if current:
        dims = [Dim(k, _size_values(v, blocks)) for k, v in sorted(current.items())]
        res = shrink(dims, lambda cfg: disagrees(sized(cfg)), rng_seed=rng_seed, max_examples=_SHRINK_EXAMPLES)
        tried += len(res.tried)
        out = sized(res.config) if res.shrunk else case
    levels: list[str | None] = [*SIMPLE_VALUES, None]
    res_v = shrink([Dim("values", levels)], lambda cfg: disagrees(with_values(out, cfg["values"])),
                   rng_seed=rng_seed + 1, max_examples=len(levels) + 2)
    tried += len(res_v.tried)
    level = res_v.config["values"]
    final = with_values(out, level)
    if level is not None:
        final = final.model_copy(update={"label": f"{out.label or 'nominal sizes'}; input values: {level}"})
    if final.model_dump(exclude={"id", "label"}) == case.model_dump(exclude={"id", "label"}):
        return case, False, tried
    return final.model_copy(update={"id": "compare-shrunk"}), True, tried


def _label(case: Case, cfg: dict[str, Any]) -> str:
    sizes = ", ".join(f"{k}={v}" for k, v in sorted(cfg.items()))
    rest = [t.kind for t in case.transforms] + ([f"dtype {case.dtype}"] if case.dtype else [])
    return "; ".join([sizes, *rest]) if rest else sizes


def compare_pair(a: Side, b: Side, cases: list[Case], *, rng_seed: int, original: str | None = None,
                 precision_factor: float | None = None, progress: Callable[[str], None] | None = None) -> PairReport:
    """Check ``a`` and ``b`` on every case; shrink the disagreement found on the fewest input
    elements. ``a`` is the original when ``original`` names it."""
    rep = PairReport(names=[a.name, b.name], original=original)
    found: list[tuple[CaseCheck, Case]] = []
    for case in cases:
        if progress is not None:
            progress(case.spec())
        chk = check_case(a, b, case, judge=False, precision_factor=precision_factor)
        if chk.kind in ("not_run", "inputs_differ"):
            rep.cases_not_comparable += 1
            continue
        if chk.kind == "refusal":
            who = next(s.name for s in chk.sides if s.status == "refused")
            rep.cases_refused[who] = rep.cases_refused.get(who, 0) + 1
            rep.refusal = rep.refusal or chk.detail
            continue
        rep.cases_checked += 1
        same = chk.sides[0].output_digest is not None and chk.sides[0].output_digest == chk.sides[1].output_digest
        rep.cases_bitwise_equal += int(same)
        if chk.disagree:
            rep.cases_disagreeing += 1
            found.append((chk, case))
    pair = f"{a.name} and {b.name}"
    refused = "; ".join(f"{who} refuses {n} case(s) the other answers ({rep.refusal[:160]})"
                        for who, n in rep.cases_refused.items())
    if not found:
        rep.summary = (f"{pair} agree within tolerance on all {rep.cases_checked} case(s) both answered "
                       f"({rep.cases_bitwise_equal} bitwise equal)")
        if refused:
            rep.summary += f"; {refused}"
        if rep.cases_not_comparable:
            rep.summary += f"; {rep.cases_not_comparable} case(s) not comparable (the reference fails, a run is inconclusive, or inputs differ)"
        return rep
    idx = min(range(len(found)), key=lambda i: (found[i][0].input_elements, i))
    start = found[idx][1]
    rep.found_on = start.model_dump(exclude_defaults=True)
    smallest, rep.shrunk, rep.shrink_tried = shrink_disagreement(a, b, start, rng_seed=rng_seed,
                                                                 precision_factor=precision_factor, progress=progress)
    rep.smallest = check_case(a, b, smallest, precision_factor=precision_factor)
    if not rep.smallest.disagree:  # never report a case that does not show it: fall back to where it was found
        smallest, rep.shrunk = start, False
        rep.smallest = check_case(a, b, start, precision_factor=precision_factor)
    chk = rep.smallest
    judge = chk.judge or "no float64 judge"
    rep.summary = (f"{pair} disagree on {rep.cases_disagreeing} of {rep.cases_checked} case(s); smallest "
                   f"{'shrunk ' if rep.shrunk else ''}case: {chk.label or smallest.spec()} "
                   f"({chk.input_elements} input elements): {chk.detail[:300]}; {judge}"
                   + (f"; {refused}" if refused else ""))
    return rep
