"""The cases memcheck runs: the nominal ones, and a few boundary shapes whose sizes are not
multiples of the block sizes the submission tiles by.

KernelBench: the reference's module-level size constants are rebound (in the children); GPU MODE
and manifest tasks: the integer generator kwargs of the smallest nominal case are changed. Sizes
are scaled down first so that a boundary case stays cheap under the interpreter.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from reviewer.core.submission import Submission
from tools.engine.formats import format_of
from tools.engine.harness.case import Case
from tools.engine.source import parse as parse_source

# Rationale: the interpreter costs ~1 ms per program instance and the sanitizer adds to it; 2^16
# input elements keep a boundary case to about a second at the usual block sizes.
ELEMENT_BUDGET = 1 << 16
# Rationale: integer constants below 8 are usually axes, kernel sizes, strides or head counts:
# changing them changes the problem, not its size.
MIN_SIZE = 8
MAX_BOUNDARY_CASES = 3

_BLOCK_NAME = re.compile(r"\b([A-Za-z_]*(?:BLOCK|TILE|BLK|GROUP_SIZE)[A-Za-z_0-9]*)\s*[:=]\s*(\d+)\b", re.IGNORECASE)


def _pow2(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 2 and v & (v - 1) == 0


def block_sizes(source: str, launches: dict[str, Any] | None) -> list[int]:
    """Powers of two the submission tiles by.

    Rationale: Triton block shapes must be powers of two; they show up as constexpr values of the
    real launches (captured by ``triton_launches``) and as literals bound to BLOCK-like names."""
    found: set[int] = set()
    for launch in (launches or {}).get("launches", []):
        found.update(v for v in (launch.get("constexprs") or {}).values() if _pow2(v))
    for m in _BLOCK_NAME.finditer(source):
        v = int(m.group(2))
        if _pow2(v):
            found.add(v)
    return sorted(found)


def _odd(v: int) -> int:
    return max(1, v if v % 2 else v - 1)


def _variants(sizes: dict[str, int], blocks: list[int]) -> list[tuple[str, dict[str, int]]]:
    """(label, params): odd sizes; one above the largest block that fits each size; one below the
    smallest block that covers it."""

    def bounded(c: int | None, v: int) -> int:
        # Rationale: a boundary case may at most double a size, so it stays near the element budget.
        return c if c is not None and 1 <= c <= 2 * v else _odd(v)

    def above(v: int) -> int:
        fitting = [b for b in blocks if b <= v] or blocks[:1]
        return bounded(fitting[-1] + 1 if fitting else None, v)

    def below(v: int) -> int:
        covering = [b for b in blocks if b >= v] or blocks[-1:]
        return bounded(covering[0] - 1 if covering else None, v)

    out = [("odd sizes", {k: _odd(v) for k, v in sizes.items()})]
    if blocks:
        out.append(("block+1", {k: above(v) for k, v in sizes.items()}))
        out.append(("block-1", {k: below(v) for k, v in sizes.items()}))
    return out


def _scaled(sizes: dict[str, int], numel: int) -> dict[str, int]:
    if numel <= ELEMENT_BUDGET or not sizes:
        return dict(sizes)
    f = (ELEMENT_BUDGET / numel) ** (1.0 / len(sizes))
    return {k: max(MIN_SIZE, math.floor(v * f)) for k, v in sizes.items()}


def input_constants(reference_source: str, constants: dict[str, Any]) -> dict[str, Any]:
    """The size constants that ``get_inputs``/``get_init_inputs`` read, directly or through derived
    module-level names (``dim = 2 * hidden``): rebinding any other constant changes the problem."""
    try:
        tree = parse_source(reference_source)
    except SyntaxError:
        return {}
    derived: dict[str, set[str]] = {}
    roots: set[str] = set()
    for node in tree.body:
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if isinstance(node, ast.FunctionDef) and node.name in ("get_inputs", "get_init_inputs"):
            roots |= names
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    derived.setdefault(t.id, set()).update(names)
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(derived.get(name, ()))
    return {k: v for k, v in constants.items() if k in seen}


def boundary_cases(sub: Submission, nominal: list[Case], nominal_numel: int, blocks: list[int],
                   seed: int) -> list[Case]:
    """At most ``MAX_BOUNDARY_CASES`` off-nominal cases (none if no size can be changed)."""
    rebinds = format_of(sub).sizes_in_reference
    if rebinds:
        base: dict[str, Any] = input_constants(sub.source(sub.reference_file), sub.size_constants)
        fixed: dict[str, Any] = {}
    else:
        if not nominal:
            return []
        base = dict(min(nominal, key=lambda c: math.prod(v for v in c.params.values()
                                                          if isinstance(v, int) and not isinstance(v, bool)) or 1)
                    .params)
        fixed = {k: v for k, v in base.items() if k == "seed"}
    sizes = {k: v for k, v in base.items()
             if isinstance(v, int) and not isinstance(v, bool) and v >= MIN_SIZE and k != "seed"}
    if not sizes:
        return []
    seen = [{k: v for k, v in base.items() if k in sizes}]
    cases: list[Case] = []
    for label, params in _variants(_scaled(sizes, nominal_numel), blocks):
        if params in seen:
            continue
        seen.append(params)
        shown = ", ".join(f"{k}={v}" for k, v in params.items())
        full = params if rebinds else {**base, **params, **fixed}
        cases.append(Case(id=f"memcheck-b{len(cases)}", seed=seed, params=full, dtype=sub.dtype,
                          label=f"boundary {label}: {shown}"))
        if len(cases) >= MAX_BOUNDARY_CASES:
            break
    return cases


def is_nominal(sub: Submission, case: Case) -> bool:
    """Whether ``case`` is one of the submission's nominal inputs (seed aside)."""
    if case.transforms or case.dtype != sub.dtype:
        return False
    return format_of(sub).is_nominal_size(sub, case.params)
