"""The numerics stress cases: what each one feeds the kernel and the defect code it reports.

Every probe is a case derived from the nominal one (same seed and sizes, or the reduced sizes
from tools/baseline.affordable_params) with input transforms (tools/engine/harness/transforms.py) or a
dtype; its id is ``numerics-<name>`` so ``kreview rerun --tool numerics --case JSON`` knows which
probe it reruns. Transforms touch the call inputs only (a KernelBench model's weights are not
inputs), identically for the reference and the submission.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from tools.engine.formats import format_of
from tools.engine.tool import ToolContext
from tools.engine.nominal_run import NominalRun
from tools.engine.harness.case import Case, Transform


@dataclass(frozen=True)
class NumericsProbe:
    name: str
    title: str
    check: str
    defect: str
    mode: str = "accuracy"
    """``accuracy``: the error budget decides (a float64 reference run per probe). ``correctness``:
    the special-value probes, where what matters is the NaN/inf positions and the finite part
    within tolerance; the budget runs only if the tolerance alone would fail."""


PROBES: dict[str, NumericsProbe] = {p.name: p for p in (
    NumericsProbe("accuracy", "accuracy at the nominal inputs",
          "error vs the float64 reference relative to the native reference's own", "precision_loss"),
    NumericsProbe("large_magnitude", "large magnitudes (inputs x1e3)",
          "inputs scaled by 1e3: overflow in exp/sum, error budget for linear ops", "large_magnitude"),
    NumericsProbe("small_magnitude", "small magnitudes (inputs x1e-3)",
          "inputs scaled by 1e-3: an epsilon placed wrongly (outside a sqrt, added to the norm instead of the "
          "variance) or a fixed threshold stands out once the spread is comparable to it", "small_magnitude",
          "correctness"),
    NumericsProbe("shifted_mean", "shifted mean, small variance (inputs + 1e3)",
          "inputs shifted by 1e3 with the same spread: cancellation in E[x^2]-E[x]^2", "cancellation"),
    NumericsProbe("nan", "NaN inputs", "NaN injected at 3 positions per input: positions must match the reference's",
          "nan_propagation", "correctness"),
    NumericsProbe("inf", "+-inf inputs", "+inf and -inf injected at 2 positions each: positions and signs must match",
          "inf_handling", "correctness"),
    NumericsProbe("negative_zero", "-0 inputs", "-0.0 at 1/8 of the elements", "signed_zero", "correctness"),
    NumericsProbe("subnormal", "subnormal inputs", "subnormal values at 1/8 of the elements", "subnormal",
                  "correctness"),
    NumericsProbe("exact_zero", "exact zeros at the edge of the reference's ops",
                  "exact 0.0 at 1/8 of the elements, run where the reference uses an op whose domain ends at 0 "
                  "(log, xlogy, kl_div, cross entropy, division, reciprocal, rsqrt): zero targets, one-hot or "
                  "underflowed probabilities; NaN/inf positions must match the reference's", "domain_edge",
                  "correctness"),
    NumericsProbe("float16", "float16 inputs (model cast)", "inputs and model in float16, error budget vs float64",
          "reduced_precision"),
    NumericsProbe("bfloat16", "bfloat16 inputs (model cast)", "inputs and model in bfloat16, error budget vs float64",
          "reduced_precision"),
    NumericsProbe("float16_range", "float16 inputs near the range",
          "inputs in float16 shifted so sums along a row approach 65504: an accumulator kept in fp16 overflows; "
          "error budget vs float64", "low_precision_accumulation"),
    NumericsProbe("float16_squares", "float16 inputs, squares fit but their row sums do not",
          "inputs in float16 scaled so every square fits in float16 while a row's sum of squares passes 65504 "
          "(|x| about 100 over 64 terms): an fp16 accumulator of squares (a norm) overflows where the reference, "
          "which accumulates wider, does not; error budget vs float64", "low_precision_accumulation"),
    NumericsProbe("bfloat16_precision", "bfloat16 inputs, row sums past 2^8 terms",
          "positive bfloat16 inputs (x + 4) over rows of 512 or more: a bfloat16 accumulator stops growing once "
          "its partial sum passes 2^8 times a term (8 significant bits); error budget vs float64",
          "low_precision_accumulation"),
    NumericsProbe("cancelling_sum", "exactly cancelling halves along the last dim",
          "values in [0.5, 1) on a coarse grid, the second half of the last dim the first half's negatives: "
          "partial sums reach a quarter of the row's length while a row sums to under 2, and an fp32 "
          "accumulator sums them exactly in any order, so a 16-bit running sum's rounding is all the error "
          "there is; error budget vs float64 (run where the reference reduces one floating input and is "
          "itself within an output ULP on these values)", "low_precision_accumulation"),
    NumericsProbe("determinism", "determinism", "two runs on the same inputs compared bitwise", "nondeterminism"),
)}

# Rationale: 1e3 overflows exp() of typical logits (exp(88) is fp32's limit) while staying far
# from fp32/fp16 overflow for the inputs themselves; the same offset makes E[x^2] ~1e6 x Var[x].
_MAGNITUDE = 1e3
# Rationale: x1e-3 makes a unit-variance input's variance 1e-6, below the 1e-5 epsilon of LayerNorm and
# GroupNorm and near RMSNorm's 1e-6, so where the epsilon sits decides the output, while every value
# (and its square, 1e-6 * 25 at most) stays a normal float32 far above the subnormal range. Judged by the
# tolerance first (mode correctness): next to the reference's tiny own error at these magnitudes, a
# budget alone would fail exp(x) - 1 written for expm1 (1e-7 off on outputs of 1e-3), which is not
# what this probe is for; an epsilon in the wrong place is off by the output's own size.
_SMALL = 1e-3
_NAN_COUNT, _INF_COUNT = 3, 2


def _input_dtype(base: NominalRun) -> str | None:
    """The floating dtype of the nominal inputs (a KernelBench task in fp16 sets none of its own)."""
    for d in base.evaluation.ref.meta.get("inputs", []):
        dt = str(d.get("dtype", ""))
        if dt.startswith(("float", "bfloat")):
            return dt.removeprefix("torch.")
    return None


def _largest_input(base: NominalRun) -> int:
    shapes = [d.get("shape") for d in base.evaluation.ref.meta.get("inputs", []) if "shape" in d]
    sizes = [math.prod(s) if s else 1 for s in shapes]
    return max(sizes or [1])


# Rationale: fp16's largest finite value; a row of n positive values of RANGE_SHARE * 65504 / n sums to
# twice the range, so an fp16 accumulator overflows while the mean (a value of the inputs) fits.
_FP16_MAX = 65504.0
_RANGE_SHARE = 2.0


def range_offset(base: NominalRun) -> float:
    """The shift that makes sums along the longest input dimension reach about twice fp16's range
    (capped so that single values stay well inside it)."""
    dims = [max(d.get("shape") or [1]) for d in base.evaluation.ref.meta.get("inputs", []) if "shape" in d]
    n = max(dims or [1])
    return float(min(2048.0, max(1.0, round(_RANGE_SHARE * _FP16_MAX / n))))


# Rationale: nominal inputs are of order one (randn: |x| up to about 5); a scale of at most 40 keeps every
# square below 200^2 = 40,000, inside fp16's 65,504, while the factor makes a row's sum of squares reach
# RANGE_SHARE times the range. Below a factor of 2 the plain float16 probe already sits in this band.
_SQUARES_CAP, _SQUARES_MIN = 40.0, 2.0
# Rationale: bfloat16 keeps 8 significant bits: a partial sum past 2^8 terms of similar size stops
# growing in a bfloat16 accumulator; twice that many terms make the loss unmistakable.
_BF16_TERMS = 512


def _longest_dim(base: NominalRun) -> int:
    dims = [max(d.get("shape") or [1]) for d in base.evaluation.ref.meta.get("inputs", []) if "shape" in d]
    return max(dims or [1])


def squares_scale(base: NominalRun) -> float | None:
    """The input scale that puts sums of squares along the longest dimension past fp16's range while every
    square fits; None where no such band exists at this size."""
    f = min(_SQUARES_CAP, (_RANGE_SHARE * _FP16_MAX / _longest_dim(base)) ** 0.5)
    return float(round(f, 1)) if f >= _SQUARES_MIN else None


# Rationale: ops whose domain ends at exactly 0, where a kernel that writes the formula out (t * log t,
# 1 / x) returns NaN/inf while the library op defines the limit (xlogy(0, y) = 0); derived from the
# reference's own source, so the probe runs only where the reference gives such a zero its meaning.
_EDGE_OPS = re.compile(r"\b(log|log2|log10|xlogy|special_xlogy|kl_div|cross_entropy|nll_loss|binary_cross_entropy"
                       r"|entropy|reciprocal|rsqrt|div|true_divide)\b")


def domain_edge_ops(ctx: ToolContext) -> list[str]:
    """The ops with a domain edge at 0 that the reference's source calls (sorted, unique)."""
    sub = ctx.submission
    try:
        text = (Path(sub.root) / sub.reference_file).read_text(errors="replace")
    except OSError:
        return []
    return sorted(set(_EDGE_OPS.findall(text)))


def _floating_inputs(base: NominalRun) -> int:
    return sum(1 for d in base.evaluation.ref.meta.get("inputs", [])
               if str(d.get("dtype", "")).startswith(("float", "bfloat")))


def _numel(descs: list[dict]) -> int:
    return max((math.prod(d.get("shape") or [1]) for d in descs if "shape" in d), default=0)


def cancelling_sum_dtype(ctx: ToolContext, base: NominalRun) -> str | None | bool:
    """Whether the cancelling-sum probe runs, and in which dtype (None: the case's own; False: it does not
    run). Rationale: it runs where the reference reduces (its largest output is smaller than its input)
    one floating input, so the exact cancellation is the task's own sum (two inputs multiply, and their
    products are not exact); in fp16 for an fp32 task whose format casts (as the float16 probes do), in
    the task's 16-bit dtype otherwise; bfloat16 only where the run setup computes it faithfully."""
    meta = base.evaluation.ref.meta
    if _floating_inputs(base) != 1 or not 0 < _numel(meta.get("outputs", [])) < _numel(meta.get("inputs", [])):
        return False
    native = ctx.submission.dtype or _input_dtype(base) or "float32"
    if native == "float32":
        return "float16" if format_of(ctx.submission).casts_dtype else None
    if native == "bfloat16" and ctx.setup.unfaithful("bfloat16") is not None:
        return False
    return None if native in ("float16", "bfloat16") else False


def plan(ctx: ToolContext, base: NominalRun, params: dict,
         nominal_cap_units: float | None = None) -> list[tuple[NumericsProbe, Case]]:
    """The probe cases for this submission, in order (accuracy is judged separately). The cancelling-sum
    probe runs at the nominal sizes where one nominal call counts at most ``nominal_cap_units`` (its
    partial sums grow with the row's length), at ``params`` otherwise."""
    sub = ctx.submission
    seed = base.case.seed
    share = max(1, _largest_input(base) // 8)

    def case(name: str, transforms: list[Transform] | None = None,
             dtype: str | None = None) -> tuple[NumericsProbe, Case]:
        return PROBES[name], base.case.model_copy(update={
            "id": f"numerics-{name}", "label": PROBES[name].title, "params": params,
            "transforms": transforms or [], "dtype": dtype or base.case.dtype})

    out = [
        case("large_magnitude", [Transform(kind="scale", args={"factor": _MAGNITUDE})]),
        case("shifted_mean", [Transform(kind="shift", args={"offset": _MAGNITUDE})]),
        case("nan", [Transform(kind="inject", args={"value": "nan", "count": _NAN_COUNT, "seed": seed})]),
        case("inf", [Transform(kind="inject", args={"value": "inf", "count": _INF_COUNT, "seed": seed}),
                     Transform(kind="inject", args={"value": "-inf", "count": _INF_COUNT, "seed": seed + 1})]),
        case("negative_zero", [Transform(kind="inject", args={"value": "-0", "count": share, "seed": seed})]),
        case("subnormal", [Transform(kind="inject", args={"value": "subnormal", "count": share, "seed": seed})]),
    ]
    # Rationale: float32/float64 only: in float16 the squares of x1e-3 inputs are subnormal or zero for the
    # reference too, which tests the dtype's range rather than the kernel.
    if (_input_dtype(base) or sub.dtype or "float32") in ("float32", "float64"):
        out.insert(1, case("small_magnitude", [Transform(kind="scale", args={"factor": _SMALL})]))
    if domain_edge_ops(ctx):
        out.append(case("exact_zero", [Transform(kind="inject", args={"value": "0", "count": share, "seed": seed,
                                                                   "per_input": True})]))
    if format_of(sub).casts_dtype:
        native = sub.dtype or _input_dtype(base) or "float32"
        if native == "float32":
            out.append(case("float16", dtype="float16"))
            if ctx.setup.unfaithful("bfloat16") is None:  # e.g. the Triton interpreter (NOTES.md)
                out.append(case("bfloat16", dtype="bfloat16"))
        if native in ("float32", "float16"):
            shift = Transform(kind="shift", args={"offset": range_offset(base)})
            out.append(case("float16_range", [shift], dtype="float16" if native == "float32" else None))
            if (factor := squares_scale(base)) is not None:
                out.append(case("float16_squares", [Transform(kind="scale", args={"factor": factor})],
                                dtype="float16" if native == "float32" else None))
        if (native in ("float32", "bfloat16") and _longest_dim(base) >= _BF16_TERMS
                and ctx.setup.unfaithful("bfloat16") is None):
            out.append(case("bfloat16_precision", [Transform(kind="shift", args={"offset": 4.0})],
                            dtype="bfloat16" if native == "float32" else None))
    if (dtype := cancelling_sum_dtype(ctx, base)) is not False:
        probe, c = case("cancelling_sum", [Transform(kind="mirror_halves", args={"seed": seed})], dtype=dtype)
        if nominal_cap_units is not None and base.nominal_units <= nominal_cap_units:
            c = c.model_copy(update={"params": dict(base.case.params)})
        out.append((probe, c))
    out.append(case("determinism"))
    return out
