"""Size-dependent code paths of the submission's wrapper, and sizes that take them.

A wrapper that picks its kernel by size (``if n >= 1 << 20: big_kernel[...]``) has paths that only
a task's benchmark sizes reach; those sizes are often too large for an interpreter, so the path was
never run and a defect on it (a dropped tail) passed. This module reads the thresholds a size is
compared with in the host code (not inside kernels) and proposes, per size knob, the smallest
values past each threshold that a benchmark size also passes (the threshold itself and one past it,
for the knob as the compared quantity or as the side of a square whose element count is compared:
one past also lands off a power-of-two block). The generality search runs them like any other size;
whichever cannot be run is reported as the path not run.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any

from tools.engine.source import parse as parse_source

_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
        ast.Pow: lambda a, b: a ** b if 0 <= b <= 64 else None, ast.LShift: lambda a, b: a << b if 0 <= b <= 62 else None,
        ast.FloorDiv: lambda a, b: a // b if b else None}
_MIN_THRESHOLD = 2


@dataclass(frozen=True)
class Threshold:
    value: int
    line: int
    condition: str


def _const(node: ast.AST, names: dict[str, int] | None = None) -> int | None:
    """An integer constant expression (``1 << 20``, ``2 ** 16``, ``1024 * 1024``, a module-level
    constant such as ``BIG``), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name) and names:
        return names.get(node.id)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        a, b = _const(node.left, names), _const(node.right, names)
        if a is None or b is None:
            return None
        try:
            return _OPS[type(node.op)](a, b)
        except (OverflowError, ValueError):
            return None
    return None


def is_kernel(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(any(w in ast.unparse(d) for w in ("jit", "kernel", "autotune", "heuristics")) for d in fn.decorator_list)


def module_constants(tree: ast.Module) -> dict[str, int]:
    """Module-level names bound to an integer constant expression (``BIG = 1 << 20``)."""
    names: dict[str, int] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = _const(stmt.value, names)
            if value is not None:
                names[stmt.targets[0].id] = value
    return names


def condition_thresholds(test: ast.AST, names: dict[str, int]) -> list[Threshold]:
    """The integer thresholds one condition compares a non-constant value with (``<``, ``<=``,
    ``>``, ``>=``)."""
    out: list[Threshold] = []
    for cmp in (n for n in ast.walk(test) if isinstance(n, ast.Compare)):
        sides = [cmp.left, *cmp.comparators]
        if not all(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in cmp.ops):
            continue
        values = [_const(s, names) for s in sides]
        if all(v is not None for v in values) or all(v is None for v in values):
            continue  # constant folding or no constant: nothing to cross
        out += [Threshold(v, cmp.lineno, ast.unparse(cmp)[:120]) for v in values
                if v is not None and v >= _MIN_THRESHOLD]
    return out


def thresholds(source: str) -> list[Threshold]:
    """Integer thresholds that host code compares a value with in a branch condition."""
    try:
        tree = parse_source(source)
    except SyntaxError:
        return []
    names = module_constants(tree)
    kernels: set[int] = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_kernel(fn):
            kernels |= {id(n) for n in ast.walk(fn)}
    out: dict[int, Threshold] = {}
    for node in ast.walk(tree):
        if id(node) in kernels or not isinstance(node, (ast.If, ast.IfExp, ast.While)):
            continue
        for t in condition_thresholds(node.test, names):
            out.setdefault(t.value, t)
    return sorted(out.values(), key=lambda t: t.value)


def crossing_values(t: Threshold, square: bool = True) -> list[int]:
    """Knob values on both sides of a threshold: the quantity itself, or (``square``: some input has
    two or more dimensions a knob may drive) the side of a square whose element count is compared.

    Rationale: a 1-D input's element count is the knob itself; square-root sizes there only look
    like the path (1,024 and 1,025 for a 2^20 threshold) without ever taking it."""
    if not square:
        return sorted({t.value, t.value + 1})
    root = math.isqrt(t.value - 1) + 1 if t.value > 1 else 1  # ceil(sqrt)
    return sorted({t.value, t.value + 1, root, root + 1})


def multi_dimensional(inputs: list[dict[str, Any]]) -> bool:
    """Whether some recorded input tensor has two or more dimensions (True when shapes are unknown)."""
    shapes = [i.get("shape") for i in inputs if isinstance(i, dict) and i.get("shape") is not None]
    return not shapes or any(len(s) >= 2 for s in shapes)


def path_sizes(source: str, nominal: int, reached: list[int], square: bool = True) -> list[tuple[int, Threshold]]:
    """Per threshold between the nominal size and the largest size a benchmark (or another listed
    case) uses: the knob values that cross it, within (nominal, max(reached)]."""
    top = max([v for v in reached if v > nominal], default=None)
    if top is None:
        return []
    out: list[tuple[int, Threshold]] = []
    seen: set[int] = set()
    for t in thresholds(source):
        for v in crossing_values(t, square):
            # Rationale: a threshold the nominal size already crosses, as quantity and as square
            # side alike, is a path the nominal case (or the sweep) runs anyway.
            if nominal < v <= top and v not in seen:
                seen.add(v)
                out.append((v, t))
    return out


def describe(t: Threshold) -> dict[str, Any]:
    return {"line": t.line, "condition": t.condition, "threshold": t.value}
