"""Deterministic input transforms, applied identically in the reference and submission children.

Layout transforms keep every value and the logical shape and change only strides or storage
offset, so the reference's answer is unchanged and any difference is the submission's. Value
transforms change the data before either side sees it (``expand`` is both: a stride-0 view whose
rows repeat the first one). Value transforms return contiguous tensors: list them before layout
transforms. Each transform names the input leaves it
touches by index (``inputs: [0, 2]``); without ``inputs`` it touches every floating-point tensor.
"""

from __future__ import annotations

import math
import zlib

from collections.abc import Callable
from typing import Any

import torch

from tools.engine.harness.case import Transform

TransformFn = Callable[[torch.Tensor, dict[str, Any]], torch.Tensor]
TRANSFORMS: dict[str, TransformFn] = {}


def transform(name: str) -> Callable[[TransformFn], TransformFn]:
    def deco(fn: TransformFn) -> TransformFn:
        TRANSFORMS[name] = fn
        return fn

    return deco


@transform("transpose_layout")
def _transpose_layout(t: torch.Tensor, args: dict[str, Any]) -> torch.Tensor:
    """Same values, column-major strides in the last two dims (a transposed, re-transposed view)."""
    if t.dim() < 2:
        return t
    return t.transpose(-1, -2).contiguous().transpose(-1, -2)


@transform("strided_slice")
def _strided_slice(t: torch.Tensor, args: dict[str, Any]) -> torch.Tensor:
    """Same values as a view taking every ``step``-th element of a larger buffer along ``dim``."""
    if t.dim() == 0:
        return t
    step = int(args.get("step", 2))
    dim = int(args.get("dim", -1)) % t.dim()
    shape = list(t.shape)
    shape[dim] *= step
    big = torch.zeros(shape, dtype=t.dtype, device=t.device)
    index = [slice(None)] * t.dim()
    index[dim] = slice(None, None, step)
    view = big[tuple(index)]
    view.copy_(t)
    return view


@transform("storage_offset")
def _storage_offset(t: torch.Tensor, args: dict[str, Any]) -> torch.Tensor:
    """Same values, contiguous, but starting ``offset`` elements into its storage."""
    offset = int(args.get("offset", 1))
    flat = torch.zeros(t.numel() + offset, dtype=t.dtype, device=t.device)
    view = flat[offset:].view(t.shape)
    view.copy_(t)
    return view


@transform("expand")
def _expand(t: torch.Tensor, args: dict[str, Any]) -> torch.Tensor:
    """A stride-0 view along dim 0: every row is the tensor's first row (values change, identically
    on both sides). Tensors with fewer than two dims are left alone."""
    if t.dim() < 2 or t.shape[0] < 2:
        return t
    return t[:1].expand(t.shape)


def _special(value: str, dtype: torch.dtype) -> float:
    if value == "nan":
        return float("nan")
    if value == "inf":
        return float("inf")
    if value == "-inf":
        return float("-inf")
    if value == "-0":
        return -0.0
    if value == "0":
        return 0.0
    if value == "subnormal":
        return float(torch.finfo(dtype).tiny) / 4
    raise ValueError(f"unknown special value {value!r}; known: nan, inf, -inf, -0, 0, subnormal")


@transform("inject")
def _inject(t: torch.Tensor, args: dict[str, Any]) -> torch.Tensor:
    """Set ``count`` elements (chosen by ``seed``) to a special value: nan, inf, -inf, -0, 0 or
    subnormal (a quarter of the dtype's smallest normal, sign kept from the element)."""
    if not t.is_floating_point() or t.numel() == 0:
        return t
    value = str(args.get("value", "nan"))
    count = min(int(args.get("count", 1)), t.numel())
    seed = int(args.get("seed", 0))
    if args.get("per_input"):
        # Rationale: inputs of one shape would otherwise get zeros at the same positions (a target and
        # a prediction both 0 there, which hides what either alone does); the positions follow the
        # tensor's own first values, so they are still a function of the case.
        head = t.detach().reshape(-1)[:16].double().cpu().abs().sum().item()
        seed += int(zlib.crc32(repr(round(head, 6)).encode()))
    gen = torch.Generator().manual_seed(seed)
    where = torch.randperm(t.numel(), generator=gen)[:count].to(t.device)
    out = t.detach().clone().contiguous()
    flat = out.view(-1)
    special = _special(value, t.dtype)
    if value == "subnormal":
        flat[where] = torch.where(flat[where] < 0, -special, special).to(t.dtype)
    else:
        flat[where] = special
    return out


@transform("scale")
def _scale(t: torch.Tensor, args: dict[str, Any]) -> torch.Tensor:
    """Large (or small) magnitudes: every element times ``factor``."""
    return t * float(args.get("factor", 1000.0))


@transform("shift")
def _shift(t: torch.Tensor, args: dict[str, Any]) -> torch.Tensor:
    """A mean far from zero with the same spread: catastrophic cancellation in E[x^2]-E[x]^2."""
    return t + float(args.get("offset", 1000.0))


# Rationale: an fp32 running sum is exact while every partial sum is a multiple of the values' granularity
# below 2^24 of it; the values' magnitude (< 1) times the longest dimension bounds every partial sum, so
# this many significant bits keep any summation order exact (23, not 24: one bit of headroom).
_EXACT_SUM_BITS = 23


@transform("mirror_halves")
def _mirror_halves(t: torch.Tensor, args: dict[str, Any]) -> torch.Tensor:
    """Sums that cancel exactly: along the last dim the first half holds values in [0.5, 1) drawn by
    ``seed``, the second half their negatives in the same order, except the first, kept positive, so a
    row sums to twice its first value (an odd middle element is 0). Partial sums grow to a quarter of the
    row's length and come back, in any summation order; the values carry so few significant bits (at
    most the dtype's, and ``_EXACT_SUM_BITS`` minus log2 of the longest dim) that an fp32 (or wider)
    accumulator sums them exactly in every order, while a 16-bit accumulator rounds once its partial
    sums pass a few units. Tensors with fewer than two elements along the last dim are left alone."""
    if not t.is_floating_point() or t.dim() == 0 or t.shape[-1] < 2:
        return t
    n = t.shape[-1]
    longest = max(t.shape)
    mantissa = round(-math.log2(torch.finfo(t.dtype).eps)) + 1
    bits = max(2, min(mantissa, _EXACT_SUM_BITS - (longest - 1).bit_length()))
    gen = torch.Generator().manual_seed(int(args.get("seed", 0)))
    half = n // 2
    steps = 2 ** (bits - 1)  # values k / 2^bits for k in [steps, 2 * steps): [0.5, 1) on the grid
    k = torch.randint(steps, 2 * steps, (*t.shape[:-1], half), generator=gen, dtype=torch.int64)
    v = k.to(torch.float64) / 2.0 ** bits
    neg = -v
    neg[..., 0] = v[..., 0]
    middle = [torch.zeros((*t.shape[:-1], 1), dtype=torch.float64)] if n % 2 else []
    out = torch.cat([v, *middle, neg], dim=-1)
    return out.to(dtype=t.dtype, device=t.device).contiguous()


@transform("round_to")
def _round_to(t: torch.Tensor, args: dict[str, Any]) -> torch.Tensor:
    """Values rounded to a narrower format and kept in their dtype: ``format`` is ``tf32`` (10
    mantissa bits, round to nearest even, as a GPU's TF32 conversion), ``float16``, ``bfloat16`` or
    ``float8`` (e4m3).
    Used to estimate what a precision downgrade would cost, by running the reference on it."""
    fmt = str(args.get("format", "tf32"))
    if fmt == "tf32":
        if t.dtype != torch.float32:
            return t
        bits = t.contiguous().view(torch.int32)
        # round-to-nearest-even on the 13 dropped mantissa bits; inf/nan keep their bits
        lsb = (bits >> 13) & 1
        rounded = ((bits + 0xFFF + lsb) & ~0x1FFF).view(torch.float32)
        return torch.where(torch.isfinite(t), rounded, t).view(t.shape)
    target = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float8": torch.float8_e4m3fn}[fmt]
    if torch.finfo(t.dtype).bits <= torch.finfo(target).bits:
        return t
    return t.to(target).to(t.dtype)


# Rationale: the simplest values first, each exactly representable in every floating format down to
# bfloat16, so a difference that survives them is not about the inputs' low bits.
SIMPLE_VALUES = ("ones", "integers", "halves")


@transform("simplify_values")
def _simplify_values(t: torch.Tensor, args: dict[str, Any]) -> torch.Tensor:
    """Simpler values of the same shape, for shrinking a failing input: ``level`` ``ones`` (every
    element 1), ``integers`` (each rounded to the nearest integer) or ``halves`` (to the nearest 0.5).
    A value transform: list it before layout transforms."""
    level = str(args.get("level", "integers"))
    if not t.is_floating_point():
        return t
    if level == "ones":
        return torch.ones_like(t).contiguous()
    if level == "integers":
        return torch.round(t).contiguous()
    if level == "halves":
        return (torch.round(t * 2) / 2).contiguous()
    raise ValueError(f"unknown simplify_values level {level!r}; known: {', '.join(SIMPLE_VALUES)}")


def _selected(i: int, t: torch.Tensor, args: dict[str, Any]) -> bool:
    wanted = args.get("inputs")
    if wanted is None:
        return t.is_floating_point()
    return i in wanted


def _map_tensors(value: Any, fn: Callable[[int, torch.Tensor], torch.Tensor], counter: list[int]) -> Any:
    if isinstance(value, torch.Tensor):
        i = counter[0]
        counter[0] += 1
        return fn(i, value)
    if isinstance(value, list):
        return [_map_tensors(v, fn, counter) for v in value]
    if isinstance(value, tuple):
        return tuple(_map_tensors(v, fn, counter) for v in value)
    if isinstance(value, dict):
        return {k: _map_tensors(v, fn, counter) for k, v in value.items()}
    return value


def apply(inputs: list[Any], transforms: list[Transform]) -> list[Any]:
    """Apply ``transforms`` in order to the tensors of ``inputs`` (nested structures included).

    Tensor leaves are numbered in depth-first order; ``args.inputs`` selects by that number."""
    out = list(inputs)
    for tr in transforms:
        fn = TRANSFORMS.get(tr.kind)
        if fn is None:
            raise ValueError(f"unknown input transform {tr.kind!r}; known: {sorted(TRANSFORMS)}")

        def one(i: int, t: torch.Tensor, fn: TransformFn = fn, tr: Transform = tr) -> torch.Tensor:
            return fn(t, tr.args) if _selected(i, t, tr.args) else t

        out = _map_tensors(out, one, [0])
    return out
