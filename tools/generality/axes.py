"""The four directions generality searches along, as dimensions and case builders.

sizes    KernelBench size constants / GPU MODE and manifest integer kwargs (tools/engine/sizes.py)
layouts  the same values in non-contiguous storage: transposed, strided (last dim, rows), offset
         storage, and an expanded (stride-0) view
dtypes   the other floating dtypes (KernelBench and manifest; the reference decides which it accepts)
init_args the task's float hyper-parameters (``get_init_inputs()`` entries, float generator kwargs),
         each built into the reference and the submission alike (tools/generality/init_args.py)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tools.engine.formats import format_of
from tools.engine.tool import ToolContext
from tools.engine.nominal_run import NominalRun, size_knobs_of
from tools.generality.search import SearchDim
from tools.generality.init_args import generator_args, init_param_names, kernelbench_args, variants
from tools.generality.paths import describe as describe_threshold
from tools.generality.paths import multi_dimensional, path_sizes
from tools.engine.sizes import candidates, int_kwargs
from tools.engine.harness.case import Case, Transform

LAYOUTS: dict[str, list[Transform]] = {
    "transposed": [Transform(kind="transpose_layout")],
    "strided_last_dim": [Transform(kind="strided_slice", args={"step": 2, "dim": -1})],
    "strided_rows": [Transform(kind="strided_slice", args={"step": 2, "dim": 0})],
    "storage_offset": [Transform(kind="storage_offset", args={"offset": 1})],
    "expanded": [Transform(kind="expand")],
}
_NEEDS_2D = {"transposed", "strided_rows", "expanded"}
DTYPES = ("float32", "float16", "bfloat16")
_LARGE_FACTOR = 4


@dataclass
class Axis:
    name: str
    dims: list[SearchDim]
    make_case: Callable[[dict[str, Any]], Case]
    describe: Callable[[dict[str, Any]], str]
    base: dict[str, Any]
    extra: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    paths: list[dict[str, Any]] = field(default_factory=list)
    """Size-dependent wrapper paths reached by benchmark sizes: threshold, line, condition and the
    configurations that take them (tools/generality/paths.py)."""
    base_verdict: str | None = None
    """What the axis's base configuration got in its search (filled in by the search's caller)."""


def _case(ctx: ToolContext, base: NominalRun, axis: str, label: str, **update: Any) -> Case:
    return base.case.model_copy(update={"id": f"generality-{axis}", "label": label, **update})


def sizes_axis(ctx: ToolContext, base: NominalRun, blocks: set[int]) -> Axis | None:
    sub = ctx.submission
    base_params = dict(base.case.params)
    nominal = size_knobs_of(ctx, base_params)
    if not nominal:
        return None
    others: dict[str, set[int]] = {k: set() for k in nominal}
    extra: list[dict[str, Any]] = []
    for nc in [*sub.nominal_cases[1:], *sub.benchmarks]:
        kw = int_kwargs(nc.params)
        if set(kw) == set(nominal):
            extra.append(kw)
            for k, v in kw.items():
                others[k].add(v)
    # Rationale: a path only benchmark sizes reach (a size threshold in the wrapper) is tried first
    # at the smallest sizes that cross the threshold, before the large values of the sweep.
    paths: dict[tuple[int, str], dict[str, Any]] = {}
    first: list[dict[str, Any]] = []
    square = multi_dimensional(base.evaluation.ref.meta.get("inputs", []))
    for k, v in sorted(nominal.items()):
        for value, t in path_sizes(ctx.source.text, v, sorted(others[k]), square):
            cfg = {**nominal, k: value}
            entry = paths.setdefault((t.line, t.condition), {**describe_threshold(t), "configs": []})
            entry["configs"].append(cfg)
            first.append(cfg)
    dims = []
    for k, v in sorted(nominal.items()):
        cands = candidates(v, blocks, others[k])
        # Rationale: hypothesis samples values uniformly; sizes far above nominal cost many times a
        # nominal call under an interpreter, so they are tried once each after the search instead.
        small = [c for c in cands if c <= max(_LARGE_FACTOR * v, 64)]
        dims.append(SearchDim(k, [v, *small]))
        extra += [{**nominal, k: c} for c in cands if c not in small]

    def changed(cfg: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in cfg.items() if v != nominal[k]}

    def describe(cfg: dict[str, Any]) -> str:
        diff = changed(cfg)
        if not diff:
            return "nominal sizes"
        return ", ".join(f"{k}={v} (nominal {nominal[k]})" for k, v in sorted(diff.items()))

    def make_case(cfg: dict[str, Any]) -> Case:
        return _case(ctx, base, "sizes", describe(cfg), params={**base_params, **changed(cfg)})

    ordered = first + [c for c in extra if c not in first]
    return Axis("sizes", dims, make_case, describe, base=dict(nominal), extra=ordered, paths=list(paths.values()))


def layouts_axis(ctx: ToolContext, base: NominalRun, params: dict[str, Any]) -> Axis | None:
    shapes = [d.get("shape") for d in base.evaluation.ref.meta.get("inputs", []) if "shape" in d]
    float_ok = any(d.get("dtype", "").startswith(("float", "bfloat")) for d in base.evaluation.ref.meta.get("inputs", []))
    if not shapes or not float_ok:
        return None
    two_d = any(len(s) >= 2 for s in shapes)
    names = [n for n in LAYOUTS if two_d or n not in _NEEDS_2D]

    def describe(cfg: dict[str, Any]) -> str:
        return f"{cfg['layout']} inputs" if cfg["layout"] else "contiguous inputs"

    def make_case(cfg: dict[str, Any]) -> Case:
        return _case(ctx, base, "layouts", describe(cfg), params=params,
                     transforms=list(LAYOUTS[cfg["layout"]]) if cfg["layout"] else [])

    return Axis("layouts", [SearchDim("layout", [None, *names])], make_case, describe, base={"layout": None})


def dtypes_axis(ctx: ToolContext, base: NominalRun, params: dict[str, Any]) -> Axis | None:
    sub = ctx.submission
    if not format_of(sub).casts_dtype:
        return None  # the task's generator fixes the dtype; there is no knob to turn
    outs = base.evaluation.ref.meta.get("outputs", [])
    native = sub.dtype or next((o.get("dtype") for o in outs if str(o.get("dtype", "")).startswith(("float", "bfloat"))),
                               None)
    if native is None:
        return None
    notes = []
    others = [d for d in DTYPES if d != native]
    for dtype in list(others):
        why = ctx.setup.unfaithful(dtype)
        if why is not None:
            others.remove(dtype)
            notes.append(f"{dtype} not tried: {why}")

    def describe(cfg: dict[str, Any]) -> str:
        return f"dtype {cfg['dtype'] or native}"

    def make_case(cfg: dict[str, Any]) -> Case:
        return _case(ctx, base, "dtypes", describe(cfg), params=params, dtype=cfg["dtype"] or sub.dtype)

    return Axis("dtypes", [SearchDim("dtype", [None, *others])], make_case, describe, base={"dtype": None}, notes=notes)


def init_args_axis(ctx: ToolContext, base: NominalRun, params: dict[str, Any]) -> Axis | None:
    """One case per float hyper-parameter (at most two cases), at the probe size ``params``."""
    sub = ctx.submission
    fmt = format_of(sub)
    if fmt.sizes_in_reference:
        floats = base.evaluation.ref.meta.get("init_floats") or {}
        names = init_param_names(ctx.source.reference, (fmt.reference_names or ("Model",))[0])
        args = kernelbench_args(floats, names)
    else:
        args = generator_args(params)
    plan = variants(args)
    if not plan:
        return None

    def describe(cfg: dict[str, Any]) -> str:
        if cfg["init_args"] is None:
            return "nominal hyper-parameters"
        return ", ".join(a.describe() for a in plan[cfg["init_args"]])

    def make_case(cfg: dict[str, Any]) -> Case:
        chosen = plan[cfg["init_args"]] if cfg["init_args"] is not None else []
        if fmt.sizes_in_reference:
            return _case(ctx, base, "init-args", describe(cfg), params=params,
                         init_args={int(a.key): a.varied for a in chosen})
        return _case(ctx, base, "init-args", describe(cfg), params={**params, **{a.key: a.varied for a in chosen}})

    return Axis("init_args", [SearchDim("init_args", [None, *plan])], make_case, describe, base={"init_args": None})
