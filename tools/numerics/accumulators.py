"""Static check: accumulators whose dtype follows a low-precision input (or is fp16/bf16 outright).

A Triton accumulator declared as ``tl.zeros(shape, dtype=x_ptr.dtype.element_ty)`` (or ``x.dtype``,
a ``tl.constexpr`` dtype argument the launch does not set to float32, ``tl.zeros_like(x)`` of a value
loaded in the input's dtype, ``tl.full``, or ``tl.float16``/``tl.bfloat16``) and then updated in a loop (``acc += ...`` or
``acc = acc + ...``/``tl.dot(a, b, acc)``) sums in the input's precision: exact enough for fp32
inputs, but with fp16 inputs the partial sums keep 11 significant bits and overflow once they pass
65504, though the final result (a mean, a normalised value) would fit. Nominal-magnitude probes miss
it; the finding points at the line, and the numerics ``float16 inputs near the range`` probe shows
the overflow as evidence where it happens.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tools.engine.source import parse as parse_source

_CTORS = {"zeros", "full", "zeros_like", "full_like"}
_LOW = {"float16", "bfloat16", "float8e4nv", "float8e5", "float8e4b15"}


@dataclass(frozen=True)
class Accumulator:
    name: str
    line: int
    loop_line: int
    dtype_text: str
    follows_input: bool
    """True: the dtype is taken from an argument (``x_ptr.dtype.element_ty``); False: fp16/bf16 literal."""


def _dtype_kw(call: ast.Call) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == "dtype":
            return kw.value
    if isinstance(call.func, ast.Attribute) and call.func.attr in ("zeros", "full") and len(call.args) >= 2:
        return call.args[-1] if call.func.attr == "zeros" else (call.args[2] if len(call.args) >= 3 else None)
    return None


def _classify(dt: ast.expr, params: set[str], wide_args: set[str]) -> tuple[bool, bool]:
    """(low precision literal, follows an argument's dtype). ``params``: the kernel's parameters (a dtype
    argument follows what the caller passes); ``wide_args``: those every launch sets to float32/64."""
    text = ast.unparse(dt)
    if isinstance(dt, ast.Attribute) and dt.attr in _LOW:
        return True, False
    if isinstance(dt, ast.Name) and dt.id in params:
        return False, dt.id not in wide_args
    follows = ".dtype" in text or text.endswith("element_ty")
    return False, follows


_WIDE = ("float32", "float64", "fp32", "fp64")


def _wide_launch_args(tree: ast.AST, kernel: str) -> set[str]:
    """Keyword arguments that every launch of ``kernel`` (``kernel[grid](..., NAME=value)``) sets to a
    float32/float64 literal."""
    seen: dict[str, bool] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript)
                and ast.unparse(node.func.value).split(".")[-1] == kernel):
            continue
        for kw in node.keywords:
            if kw.arg is not None:
                v = kw.value
                wide = ((isinstance(v, ast.Attribute) and v.attr in _WIDE)
                        or (isinstance(v, ast.Name) and v.id in _WIDE))
                seen[kw.arg] = seen.get(kw.arg, True) and wide
    return {k for k, wide in seen.items() if wide}


def _like_dtype(call: ast.Call, wide_values: set[str]) -> ast.expr | None:
    """``tl.zeros_like(x)`` / ``tl.full_like(x, v)`` without a dtype: x's dtype, unless x is known wide."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in ("zeros_like", "full_like") and call.args):
        return None
    if any(kw.arg == "dtype" for kw in call.keywords):
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Name) and arg.id in wide_values:
        return None
    return ast.Attribute(value=arg, attr="dtype", ctx=ast.Load())


def _wide_values(fn: ast.FunctionDef) -> set[str]:
    """Names assigned a value cast to (or built in) float32/float64 in ``fn``."""
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if any(w in ast.unparse(node.value) for w in _WIDE):
                out.add(node.targets[0].id)
    return out


def _updates(loop: ast.AST, name: str) -> bool:
    for node in ast.walk(loop):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return True
        if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
                and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.value))):
            return True
    return False


def _is_jit(fn: ast.FunctionDef) -> bool:
    return any("jit" in ast.unparse(d) for d in fn.decorator_list)


def low_precision_accumulators(source: str) -> list[Accumulator]:
    try:
        tree = parse_source(source)
    except SyntaxError:
        return []
    out: list[Accumulator] = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or not _is_jit(fn):
            continue
        inits: dict[str, tuple[int, str, bool]] = {}
        params = {a.arg for a in fn.args.args}
        wide_args, wide_values = _wide_launch_args(tree, fn.name), _wide_values(fn)
        for node in ast.walk(fn):
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
                    and node.value.func.attr in _CTORS):
                dt = _dtype_kw(node.value) or _like_dtype(node.value, wide_values)
                if dt is None:
                    continue
                low, follows = _classify(dt, params, wide_args)
                if low or follows:
                    inits[node.targets[0].id] = (node.lineno, ast.unparse(dt), follows)
        for loop in ast.walk(fn):
            if not isinstance(loop, (ast.For, ast.While)):
                continue
            for name, (line, text, follows) in inits.items():
                if line < loop.lineno and _updates(loop, name) and not any(a.name == name for a in out):
                    out.append(Accumulator(name, line, loop.lineno, text, follows))
    return out


def message(acc: Accumulator) -> str:
    if acc.follows_input:
        return (f"accumulator `{acc.name}` (line {acc.line}) takes its dtype from an input (`{acc.dtype_text}`) and is "
                f"summed in the loop at line {acc.loop_line}: with fp16/bf16 inputs the partial sums keep 11/8 "
                f"significant bits and overflow past 65504 even where the result fits; accumulate in tl.float32")
    return (f"accumulator `{acc.name}` (line {acc.line}) is declared `{acc.dtype_text}` and summed in the loop at line "
            f"{acc.loop_line}: partial sums lose precision and overflow past the dtype's range; accumulate in "
            f"tl.float32")
