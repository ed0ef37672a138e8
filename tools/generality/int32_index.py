"""Static check: address offsets computed in int32 from a program id (``row * stride``).

Triton types ``tl.program_id`` and ``tl.arange`` as int32, and an integer kernel argument as int32
whenever its value fits. ``row * x_stride`` therefore wraps once the product reaches 2^31: for a
row kernel, as soon as the indexed tensor passes 2,147,483,648 elements (8 GiB of float32), the
last rows read and write somewhere else. No probe can allocate that on a review machine, so the
product is found in the source: a multiplication whose one side derives from ``tl.program_id``
(without a ``.to(tl.int64)``/``tl.int64`` cast) and whose other side is an integer argument or
another program-derived value, flowing into the address of a ``tl.load``/``tl.store``/atomic.

Each is reported as the finding ``int32_index_overflow`` (warning) naming the expression, its
line, and the size at which it wraps. What is not seen: products formed through helper
functions, offsets built in a loop's induction variable, and whether the task's sizes can ever
reach 2^31 elements (a reader decides); the sanitizer's int32 check
(docs/triton-sanitizer.md) catches wraps that happen at the sizes a review runs.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tools.engine.source import parse as parse_source

_ACCESS = {"load", "store", "atomic_add", "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas", "atomic_and",
           "atomic_or", "atomic_xor"}
WRAPS_AT = 2**31


@dataclass(frozen=True)
class IndexProduct:
    kernel: str
    line: int
    expression: str

    def message(self) -> str:
        return (f"`{self.expression}` in {self.kernel} (line {self.line}) is int32 arithmetic (a program id times "
                f"a size, stride or block) used in an address: it wraps once the product reaches 2^31 "
                f"({WRAPS_AT:,}), i.e. for tensors past {WRAPS_AT:,} elements (8 GiB of float32), and the last "
                f"programs then read and write the wrong elements; cast to tl.int64 before multiplying")


def _is_jit(fn: ast.FunctionDef) -> bool:
    return any("jit" in ast.unparse(d) for d in fn.decorator_list)


def _wide(node: ast.AST) -> bool:
    text = ast.unparse(node)
    return "int64" in text or "uint64" in text


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _is_access(call: ast.AST) -> bool:
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _ACCESS
            and bool(call.args))


def int32_index_products(source: str) -> list[IndexProduct]:
    try:
        tree = parse_source(source)
    except SyntaxError:
        return []
    out: list[IndexProduct] = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or not _is_jit(fn):
            continue
        args = fn.args.args
        # Rationale: a constexpr (BLOCK) is an int32 operand as much as a runtime stride is.
        ints = {a.arg for a in args if "ptr" not in a.arg.lower()}
        assigns = [n for n in ast.walk(fn) if isinstance(n, ast.Assign) and len(n.targets) == 1
                   and isinstance(n.targets[0], ast.Name)]
        narrow: set[str] = set()
        changed = True
        while changed:
            changed = False
            for a in assigns:
                name = a.targets[0].id
                derived = "program_id" in ast.unparse(a.value) or bool(_names(a.value) & narrow)
                if derived and not _wide(a.value) and name not in narrow:
                    narrow.add(name)
                    changed = True
        # names that flow into an address (the first argument of a load/store/atomic), transitively
        addressed: set[str] = set()
        for call in ast.walk(fn):
            if _is_access(call):
                addressed |= _names(call.args[0])  # type: ignore[attr-defined]
        changed = True
        while changed:
            changed = False
            for a in assigns:
                if a.targets[0].id in addressed and not _names(a.value) <= addressed:
                    addressed |= _names(a.value)
                    changed = True
        parents = {c: p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}

        def in_address(node: ast.AST, fn: ast.FunctionDef = fn, parents: dict = parents,
                       addressed: set[str] = addressed) -> bool:
            cur: ast.AST | None = node
            while cur is not None and cur is not fn:
                parent = parents.get(cur)
                if _is_access(parent) and parent.args[0] is cur:  # type: ignore[union-attr]
                    return True
                if isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Name):
                    return parent.targets[0].id in addressed
                cur = parent
            return False

        def side_narrow(node: ast.AST, narrow: set[str] = narrow) -> bool:
            return not _wide(node) and ("program_id" in ast.unparse(node) or bool(_names(node) & narrow))

        for node in ast.walk(fn):
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
                continue
            left, right = node.left, node.right
            for a, b in ((left, right), (right, left)):
                if side_narrow(a) and not _wide(b) and (bool(_names(b) & (ints | narrow))) and in_address(node):
                    out.append(IndexProduct(fn.name, node.lineno, ast.unparse(node)))
                    break
    seen: set[tuple[str, int, str]] = set()
    unique = []
    for p in out:
        if (p.kernel, p.line, p.expression) not in seen:
            seen.add((p.kernel, p.line, p.expression))
            unique.append(p)
    return unique
