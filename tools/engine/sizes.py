"""Which sizes to try, read from the sources (never by running them) and from recorded launches.

Size knobs: KernelBench module-level integer constants that ``get_inputs``/``get_init_inputs``
read (directly or through other module-level assignments, so ``N = batch * dim`` counts its
parts); GPU MODE / manifest integer generator kwargs other than ``seed``.

A tuple of int constants (KernelBench's ``input_shape = (4096,)``) gives one knob per element,
named ``input_shape[0]``; tools/engine/harness/loader.py rebinds such a name.

Values tried for a knob of nominal value ``n`` (``candidates``): 1, small primes, one below and
one above every block size (powers of two in the submission's source, integer constexprs of its
real launches) and ``n`` itself when it is a power of two, a tile and a half of the largest block,
and a larger odd size. The caller drops what its memory and time budget cannot afford.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

from tools.engine.source import parse as parse_source

# Rationale: 1 exposes empty-tail and single-element paths; odd primes are never multiples of
# any block size, so any kernel that needs divisibility shows it on them.
SMALL_PRIMES = (1, 2, 3, 5, 7, 13)
# Rationale: block sizes are powers of two in this range in every Triton/CUDA kernel we know;
# smaller literals are mostly counts and dims, not tiles.
_BLOCK_MIN, _BLOCK_MAX = 8, 1 << 17


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def size_knobs(reference_source: str) -> dict[str, int]:
    """Module-level int constants read by get_inputs/get_init_inputs (transitively), with values."""
    try:
        tree = parse_source(reference_source)
    except SyntaxError:
        return {}
    assigned: dict[str, ast.expr] = {}
    readers: list[ast.AST] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                if isinstance(t, ast.Name):
                    assigned[t.id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            assigned[stmt.target.id] = stmt.value
        elif isinstance(stmt, ast.FunctionDef) and stmt.name in ("get_inputs", "get_init_inputs"):
            readers.append(stmt)
    todo = set().union(*(_names(r) for r in readers)) if readers else set()
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in assigned:
            continue
        seen.add(name)
        todo |= _names(assigned[name])
    out: dict[str, int] = {}
    for name in sorted(seen):
        v = assigned[name]
        if _positive_int(v):
            out[name] = v.value
        elif isinstance(v, ast.Tuple) and v.elts and all(_positive_int(e) for e in v.elts):
            out |= {element_knob(name, i): e.value for i, e in enumerate(v.elts)}
    return out


def _positive_int(v: ast.expr) -> bool:
    return isinstance(v, ast.Constant) and isinstance(v.value, int) and not isinstance(v.value, bool) and v.value > 0


def element_knob(name: str, index: int) -> str:
    """The knob name of element ``index`` of the tuple constant ``name``."""
    return f"{name}[{index}]"


def split_knob(knob: str) -> tuple[str, int | None]:
    """``input_shape[0]`` -> ("input_shape", 0); a plain constant's name -> (name, None)."""
    name, sep, rest = knob.partition("[")
    if sep and rest.endswith("]") and rest[:-1].isdigit():
        return name, int(rest[:-1])
    return knob, None


def int_kwargs(params: dict[str, Any]) -> dict[str, int]:
    """Integer generator kwargs that set sizes (``seed`` excluded)."""
    return {k: v for k, v in params.items()
            if isinstance(v, int) and not isinstance(v, bool) and k != "seed" and v > 0}


def _pow2(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


def source_blocks(source: str) -> set[int]:
    """Power-of-two integer literals in a source that look like tile sizes."""
    try:
        tree = parse_source(source)
    except SyntaxError:
        return set()
    return {n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool)
            and _BLOCK_MIN <= n.value <= _BLOCK_MAX and _pow2(n.value)}


def launch_blocks(launches: Iterable[dict[str, Any]]) -> set[int]:
    """Integer constexpr values of recorded launches (BLOCK_SIZE, BLOCK_M, ...), from 2 up: these
    are the real tiles, so no size floor applies."""
    out: set[int] = set()
    for launch in launches:
        for v in (launch.get("constexprs") or {}).values():
            if isinstance(v, int) and not isinstance(v, bool) and 2 <= v <= _BLOCK_MAX:
                out.add(v)
    return out


def candidates(nominal: int, blocks: Iterable[int], others: Iterable[int] = ()) -> list[int]:
    """Values to try for a knob, ascending, nominal excluded (see the module docstring)."""
    vals: set[int] = set(SMALL_PRIMES)
    for b in blocks:
        vals |= {b - 1, b + 1}
    if _pow2(nominal):
        vals |= {nominal - 1, nominal + 1}
    # Rationale: block + 1 puts a single element in a second tile, where state carried from tile to
    # tile (an online softmax's running max and sum, a blocked scan's carry) is almost never
    # exercised; with a tile and a half the later tile is half full, so it holds the running maximum
    # in about a third of the rows and its carry-in matters for every element.
    if big := max((b for b in blocks if b >= 2), default=0):
        vals.add(big + big // 2 + 1)
    vals.add(2 * nominal + 1)
    vals |= set(others)
    return sorted(v for v in vals if v >= 1 and v != nominal)


def scaled_elements(nominal_elements: int, nominal: dict[str, int], chosen: dict[str, int]) -> int:
    """Input elements of a configuration if every knob scaled the inputs linearly: a first guess
    to refuse what cannot fit before anything runs (the reference's real input sizes decide next)."""
    factor = 1.0
    for k, v in chosen.items():
        if k in nominal and nominal[k] > 0:
            factor *= v / nominal[k]
    return max(1, int(nominal_elements * max(factor, 1e-9)))
