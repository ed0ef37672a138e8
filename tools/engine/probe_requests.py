"""Probes as data: what a planner may propose, and the check that turns a proposal into a ``Case``
the harness can run, or into a reason it cannot.

A proposal may change only what the harness already varies: size constants (KernelBench) or
generator kwargs (GPU MODE, manifest) that the nominal cases define, the dtype of floating inputs,
and registered input transforms (tools/engine/harness/transforms.py) with bounded arguments. The planner
never supplies values, outputs or verdicts; the probes tool runs the case against the reference.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from reviewer.core.submission import Submission
from reviewer.core.models import SourceSpan
from reviewer.core.spans import check_span
from tools.engine.formats import format_of
from tools.engine.harness.case import Case, Transform
from tools.engine.harness.transforms import TRANSFORMS
from tools.engine.review_plan import PlannedProbe
from tools.engine.tool import ToolContext

DTYPES = ("float32", "float16", "bfloat16", "float64")
VALUE_TRANSFORMS = frozenset({"scale", "shift"})

# Rationale: generality bugs show at small and odd sizes; sizes far above nominal only cost
# interpreter time and memory, so a probe may at most double a size (or reach 64 for tiny ones).
MAX_SIZE_FACTOR = 2
MIN_SIZE_CAP = 64
# Rationale: value probes test ranges a kernel meets in practice; beyond 1e4 they test fp overflow.
MAX_VALUE_MAGNITUDE = 1e4
_INT_ARGS = {"step": (2, 8), "dim": (-8, 7), "offset": (1, 64)}
_FLOAT_ARGS = {"factor": (1e-4, MAX_VALUE_MAGNITUDE), "offset": (0.0, MAX_VALUE_MAGNITUDE)}
_KNOWN_ARGS = {"transpose_layout": set(), "strided_slice": {"step", "dim"}, "storage_offset": {"offset"},
               "scale": {"factor"}, "shift": {"offset"}}


class ProbeRequest(BaseModel):
    """One proposed probe, before validation."""

    model_config = ConfigDict(extra="forbid")

    assumption: str
    params: dict[str, Any] = Field(default_factory=dict)
    dtype: str | None = None
    transforms: list[Transform] = Field(default_factory=list)
    finding: str | None = None
    span: SourceSpan | None = None


def _check_number(name: str, value: Any, nominal: Any) -> str | None:
    if isinstance(nominal, bool):
        return None if isinstance(value, bool) else f"{name} is a flag; {value!r} is not true/false"
    if isinstance(nominal, int):
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{name} is an integer size; {value!r} is not an integer"
        cap = max(MAX_SIZE_FACTOR * nominal, MIN_SIZE_CAP)
        if not 1 <= value <= cap:
            return f"{name}={value} is outside 1..{cap} (nominal {nominal})"
        return None
    if isinstance(nominal, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return f"{name} must be a finite number, not {value!r}"
        if abs(value) > max(MAX_VALUE_MAGNITUDE, 2 * abs(nominal)):
            return f"{name}={value} is beyond the magnitude probes may use"
        return None
    return f"{name} is not a numeric setting (nominal {nominal!r}) and cannot be probed"


def _check_transform(tr: Transform) -> str | None:
    if tr.kind not in TRANSFORMS:
        return f"unknown transform {tr.kind!r} (known: {', '.join(sorted(TRANSFORMS))})"
    allowed = _KNOWN_ARGS.get(tr.kind)
    for key, value in tr.args.items():
        if key == "inputs":
            if not isinstance(value, list) or not value or len(value) > 16 or not all(
                    isinstance(i, int) and not isinstance(i, bool) and 0 <= i < 64 for i in value):
                return f"{tr.kind}: inputs must list input indices 0..63"
            continue
        if allowed is not None and key not in allowed:
            return f"{tr.kind} takes no argument {key!r} (takes {sorted(allowed) or 'none'} and inputs)"
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return f"{tr.kind}.{key} must be a number"
        if tr.kind in VALUE_TRANSFORMS and key in _FLOAT_ARGS:
            lo, hi = _FLOAT_ARGS[key]
            if not lo <= abs(value) <= hi:
                return f"{tr.kind}.{key}={value} is outside |x| in [{lo}, {hi}]"
        elif key in _INT_ARGS:
            lo, hi = _INT_ARGS[key]
            if not isinstance(value, int) or not lo <= value <= hi:
                return f"{tr.kind}.{key}={value} is outside {lo}..{hi}"
        elif abs(value) > MAX_VALUE_MAGNITUDE:
            return f"{tr.kind}.{key}={value} is beyond the magnitude probes may use"
    return None


def _nominal_params(sub: Submission, keys: set[str]) -> tuple[dict[str, Any], dict[str, Any]] | str:
    """(base params the probe starts from, nominal value per probe-able key) or why not."""
    return format_of(sub).probe_base(sub, keys)


def leaves_nominal(case: Case, sub: Submission) -> bool:
    """Whether the case leaves the nominal inputs (size, dtype, layout, values); False: it is a
    nominal input under another seed. The probes tool maps the two to its own criteria."""
    if case.transforms or (case.dtype or sub.dtype) != sub.dtype:
        return True
    return not format_of(sub).is_nominal_size(sub, case.params)


def to_case(req: ProbeRequest, sub: Submission, *, seed: int, index: int, interpreted: bool) -> Case | str:
    """The runnable case for ``req``, or why it cannot be run."""
    base = _nominal_params(sub, set(req.params))
    if isinstance(base, str):
        return base
    params, nominal = base
    for key, value in req.params.items():
        why = _check_number(key, value, nominal[key])
        if why:
            return why
    params = {**params, **req.params}
    if "seed" in params:
        params["seed"] = seed
    if req.dtype is not None:
        fmt = format_of(sub)
        if not fmt.casts_dtype:
            return f"{fmt.title} inputs come from {fmt.generator}: its arguments set the dtype, not a cast"
        if req.dtype not in DTYPES:
            return f"dtype {req.dtype!r} is not one of {', '.join(DTYPES)}"
        # Rationale: the CPU interpreters compute bf16 on raw bits (wrong results), so such a probe
        # would fail every kernel; see docs/ARCHITECTURE.md and the field notes.
        if req.dtype == "bfloat16" and interpreted:
            return "bfloat16 cannot be probed under a CPU interpreter (it computes bf16 wrongly)"
    for tr in req.transforms:
        why = _check_transform(tr)
        if why:
            return why
    case = Case(id=f"probe-{index}", seed=seed, params=params, dtype=req.dtype or sub.dtype,
                transforms=list(req.transforms))
    return case.model_copy(update={"label": describe(case, sub)})


def describe(case: Case, sub: Submission) -> str:
    """The probe's input in concrete terms (the planner's reasoning stays out of evidence summaries)."""
    nominal = format_of(sub).nominal_sizes(sub)
    parts = [f"{k}={v}" for k, v in case.params.items() if k != "seed" and nominal.get(k) != v]
    if case.dtype and case.dtype != sub.dtype:
        parts.append(f"dtype {case.dtype}")
    for t in case.transforms:
        args = ", ".join(f"{k}={v}" for k, v in t.args.items())
        parts.append(f"{t.kind}({args})" if args else t.kind)
    return f"probe {', '.join(parts) or 'nominal'}, seed {case.seed}"


def plan_probes(requests: list[ProbeRequest], ctx: ToolContext, limit: int) -> tuple[list[PlannedProbe], list[str]]:
    """Validated, de-duplicated probes (at most ``limit``) and a reason for each one dropped."""
    sub = ctx.submission
    seeds = ctx.seeds(max(limit, 1), "probes")
    planned: list[PlannedProbe] = []
    dropped: list[str] = []
    seen: set[str] = set()
    for n, req in enumerate(requests, 1):
        if len(planned) >= limit:
            dropped.append(f"probe {n}: over the limit of {limit} probes")
            continue
        case = to_case(req, sub, seed=seeds[len(planned)], index=len(planned) + 1,
                       interpreted=ctx.setup.interpreted)
        if isinstance(case, str):
            dropped.append(f"probe {n} ({req.assumption[:80]}): {case}")
            continue
        key = case.model_dump_json(include={"params", "dtype", "transforms"})
        if key in seen:
            dropped.append(f"probe {n}: the same input as an earlier probe")
            continue
        seen.add(key)
        span = req.span
        why = check_span(span, sub.root_path) if span is not None else None
        if why:
            dropped.append(f"probe {n}: kept, but its source span was dropped ({why})")
            span = None
        planned.append(PlannedProbe(case=case, assumption=req.assumption, finding=req.finding, span=span))
    return planned, dropped
