"""Where a kernel computes the values it writes: the statements a wrong output value comes from.

A numeric mismatch (outputs off by more than the tolerance, non-finite, constant) says *that* the
values are wrong; a kernel author then asks *where*. This reads the submission's device code (Triton
and NKI kernels, Pallas kernel bodies) statically: every store of a result (``tl.store``, ``nl.store``,
``pl.store``, a descriptor's ``.store``, atomics, ``o_ref[...] = v``) and the assignments its value is
computed from, followed backwards through the kernel's own names; CUDA ``__global__`` functions (load_inline
sources, ``.cu`` files) are read from their text the same way: stores through a non-const pointer
parameter and the statements their values come from. Address and mask arithmetic is not
followed: a ``load``'s pointer, mask and ``other`` operands, a subscript's index. So the lines named are
the value's arithmetic and the loads it starts from, the place a wrong formula, a wrong accumulator
type or a wrong constant lives; a wrong offset shows as the load or store line itself.

It is a static slice (every definition of a name, whatever the control flow), so it can name a line that
did not run; it names nothing outside the kernels. ``value_lines`` is deterministic for one text.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from reviewer.core.lines import runs
from reviewer.core.models import SourceSpan
from reviewer.core.submission import Submission
from tools.engine.cuda_sources import GLOBAL_FUNCTION, LAUNCH_BOUNDS, find_cuda_sources, split_top, strip_comments
from tools.engine.source import SourceFile, SourceView, dotted, source_file

# a slice this long is no longer a place to look: the store lines alone are named
MAX_LINES = 16

_STORES = {"store", "atomic_add", "atomic_max", "atomic_min", "atomic_xchg", "atomic_and", "atomic_or",
           "atomic_xor", "store_scatter"}
_LOADS = {"load", "load_scatter", "load_transpose"}


@dataclass(frozen=True)
class ValueSlice:
    """The lines of one kernel's stores and the lines their values are computed on (1-based, sorted)."""

    kernel: str
    stores: tuple[int, ...]
    lines: tuple[int, ...]


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _stored_value(src: SourceFile, node: ast.Call) -> ast.AST | None:
    """The value operand of a store-like call, or None."""
    name = _call_name(node)
    if name not in _STORES:
        return None
    for kw in node.keywords:
        if kw.arg in ("value", "val"):
            return kw.value
    full = dotted(src, node.func) or ""
    # pl.store(ref, idx, val) and pltpu-style stores take the index before the value
    index = 2 if full.startswith("jax.experimental.pallas") else 1
    return node.args[index] if len(node.args) > index else None


def _pallas_kernels(src: SourceFile) -> set[ast.AST]:
    """Functions handed to ``pallas_call`` (directly or through ``functools.partial``) by name."""
    names: set[str] = set()
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and (dotted(src, node.func) or "").endswith("pallas_call") and node.args:
            first = node.args[0]
            if isinstance(first, ast.Call) and (dotted(src, first.func) or "").endswith("partial") and first.args:
                first = first.args[0]
            if isinstance(first, ast.Name):
                names.add(first.id)
    return {f for f in ast.walk(src.tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name in names}


def _names(src: SourceFile, expr: ast.AST) -> set[str]:
    """Names a value expression reads, not following address or mask operands."""
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Call) and _call_name(node) in _LOADS:
            # the loaded value comes from memory: its pointer, mask and fill are addressing
            return
        if isinstance(node, ast.Subscript):
            visit(node.value)  # the index is addressing
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            out.add(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(expr)
    return out


def _definitions(fn: ast.AST) -> dict[str, list[ast.stmt]]:
    """Name -> the statements of ``fn`` that assign it (every one, whatever the control flow)."""
    defs: dict[str, list[ast.stmt]] = {}
    for node in ast.walk(fn):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = [node.target]
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    defs.setdefault(n.id, []).append(node)  # type: ignore[arg-type]
    return defs


def _lines_of(node: ast.AST) -> range:
    """The lines a statement or call spans."""
    first = node.lineno  # type: ignore[attr-defined]
    return range(first, (getattr(node, "end_lineno", None) or first) + 1)


def _value_of(node: ast.stmt) -> ast.AST | None:
    if isinstance(node, ast.AugAssign):
        return ast.BinOp(left=node.target, op=node.op, right=node.value)
    return getattr(node, "value", None)


def _stores(src: SourceFile, fn: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """(statement, stored value) for every store in ``fn``."""
    params = {a.arg for a in ast.walk(fn) if isinstance(a, ast.arg)}
    out: list[tuple[ast.AST, ast.AST]] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and (value := _stored_value(src, node)) is not None:
            out.append((node, value))
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in params
                   for t in targets):
                out.append((node, _value_of(node)))  # type: ignore[arg-type]
    return out


def value_slices(src: SourceFile) -> list[ValueSlice]:
    """One slice per kernel of ``src`` that stores something, in source order."""
    kernels = sorted({*src.kernels, *_pallas_kernels(src)}, key=lambda f: f.lineno)  # type: ignore[attr-defined]
    out = []
    for fn in kernels:
        stores = _stores(src, fn)
        if not stores:
            continue
        defs = _definitions(fn)
        store_lines = {n for s, _ in stores for n in _lines_of(s)}
        lines: set[int] = set(store_lines)
        seen: set[int] = set()
        todo = [value for _, value in stores]
        while todo:
            expr = todo.pop()
            for name in _names(src, expr):
                for stmt in defs.get(name, []):
                    if id(stmt) in seen:
                        continue
                    seen.add(id(stmt))
                    lines.update(_lines_of(stmt))
                    if (value := _value_of(stmt)) is not None:
                        todo.append(value)
        if len(lines) > MAX_LINES:
            lines = store_lines
        out.append(ValueSlice(kernel=fn.name, stores=tuple(sorted(store_lines)),  # type: ignore[attr-defined]
                              lines=tuple(sorted(lines))))
    return out


# -- CUDA C++ (load_inline sources, .cu files): the same slice, read from the text ---------------------
_CUDA_STORE = re.compile(r"^(?:\*\s*)?(\w+)\s*(?:\[[^;]*\])+\s*([-+*/|&^]?=)(?!=)\s*(.+)$", re.DOTALL)
_CUDA_ATOMIC = re.compile(r"^atomic\w+\s*\(\s*&?\s*\(?\s*(\w+)", re.DOTALL)
_CUDA_DEF = re.compile(r"^(?:[\w:<>,\s*&]+?\s+[*&]*)?(\w+)\s*(?:\[[^;]*\])*\s*([-+*/|&^]?=)(?!=)\s*(.+)$",
                       re.DOTALL)
_WORD = re.compile(r"[A-Za-z_]\w*")


def _matching(text: str, start: int, open_: str, close: str) -> int:
    """Index of the bracket closing the one at ``start``; -1 if none."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _unbracketed(expr: str) -> str:
    """``expr`` without what is inside ``[...]`` (indices are addressing)."""
    out, depth = [], 0
    for ch in expr:
        depth += ch == "["
        if depth == 0:
            out.append(ch)
        depth -= ch == "]" and depth > 0
    return "".join(out)


def _after_header(stmt: str) -> str:
    """A statement without its control header (``if (c) out[i] = v`` -> ``out[i] = v``; ``for (int k = 0``,
    cut at the ``;``, -> ``int k = 0``)."""
    while (m := re.match(r"(?:else\b\s*)?(?:for|if|while|switch)\s*\(", stmt)) is not None:
        close = _matching(stmt, m.end() - 1, "(", ")")
        stmt = (stmt[close + 1:] if close > 0 else stmt[m.end():]).strip()
    return re.sub(r"^(?:else|do)\b", "", stmt).strip()


def cuda_value_slices(text: str) -> list[ValueSlice]:
    """The slices of the ``__global__`` functions of one CUDA text (lines 1-based in ``text``): stores
    through a non-const pointer parameter (``out[i] = v``, ``out[i] += v``, ``atomicAdd(&out[i], v)``) and
    the statements their values come from, indices not followed."""
    clean = LAUNCH_BOUNDS.sub(lambda m: " " * len(m.group(0)), strip_comments(text))
    out = []
    for m in GLOBAL_FUNCTION.finditer(clean):
        close = _matching(clean, m.end() - 1, "(", ")")
        brace = clean.find("{", close)
        end = _matching(clean, brace, "{", "}") if close > 0 and brace > 0 else -1
        if end < 0:
            continue
        params = split_top(clean[m.end():close])
        writable = {w[-1] for p in params if "*" in p and not p.startswith("const")
                    and (w := _WORD.findall(p.replace("__restrict__", "")))}
        stmts: list[tuple[int, int, str]] = []  # (first line, last line, text)
        for piece in re.finditer(r"[^;{}]+", clean[brace + 1:end]):
            s = piece.group(0)
            lead = len(s) - len(s.lstrip())
            if not s.strip():
                continue
            a = brace + 1 + piece.start() + lead
            b = brace + 1 + piece.end()
            body = s.strip()
            body = _after_header(body)
            stmts.append((clean.count("\n", 0, a) + 1, clean.count("\n", 0, b - 1) + 1, body))
        defs: dict[str, list[int]] = {}
        stores: list[int] = []
        values: dict[int, str] = {}
        for k, (_, _, body) in enumerate(stmts):
            st = _CUDA_STORE.match(body)
            at = _CUDA_ATOMIC.match(body)
            if st and st.group(1) in writable:
                stores.append(k)
                values[k] = st.group(3) + (f" {st.group(1)}" if st.group(2) != "=" else "")
            elif at and at.group(1) in writable:
                stores.append(k)
                values[k] = body[body.find(",") + 1:] if "," in body else ""
            elif (d := _CUDA_DEF.match(body)) is not None:
                defs.setdefault(d.group(1), []).append(k)
                values[k] = d.group(3) + (f" {d.group(1)}" if d.group(2) != "=" else "")
        if not stores:
            continue
        taken: set[int] = set(stores)
        todo = list(stores)
        while todo:
            k = todo.pop()
            for name in _WORD.findall(_unbracketed(values.get(k, ""))):
                for j in defs.get(name, []):
                    if j not in taken:
                        taken.add(j)
                        todo.append(j)
        lines = {n for k in taken for n in range(stmts[k][0], stmts[k][1] + 1)}
        store_lines = {n for k in stores for n in range(stmts[k][0], stmts[k][1] + 1)}
        if len(lines) > MAX_LINES:
            lines = store_lines
        out.append(ValueSlice(kernel=m.group(1), stores=tuple(sorted(store_lines)), lines=tuple(sorted(lines))))
    return out


def value_spans(submission: Submission, source: SourceView) -> list[SourceSpan]:
    """The slices of the submission's own kernel files (never its reference, inputs or task files) as
    spans, each run of lines one span with its text quoted: Python kernels, then CUDA sources. A CUDA
    text is placed only where its lines are the file's own (a literal, not assembled at import time)."""
    spans = []
    own = set(submission.kernel_files)
    for rel in (f for f in source.python_files() if f in own):
        text = source.file(rel)
        src = source_file(rel, text)
        if src is None:
            continue
        lines = text.splitlines()
        spans += [SourceSpan(file=rel, start_line=a, end_line=b, quote="\n".join(lines[a - 1:b]))
                  for sl in value_slices(src) for a, b in runs(sl.lines)]
    for cu in find_cuda_sources(submission.root_path, submission.kernel_files):
        if cu.text is None:
            continue
        lines = source.file(cu.file).splitlines()
        cuda_lines = cu.text.splitlines()
        cited = [r for sl in cuda_value_slices(cu.text) for r in runs(sl.lines)]

        def same(shift: int) -> bool:
            return all(0 <= a + shift - 1 and b + shift <= len(lines) and
                       [x.strip() for x in lines[a + shift - 1:b + shift]] == [x.strip() for x in cuda_lines[a - 1:b]]
                       for a, b in cited)

        # CudaSource.line is where the literal or its first line is; a leading newline shifts by one
        shift = next((d for d in (cu.line - 1, cu.line - 2) if same(d)), None)
        if shift is not None:
            spans += [SourceSpan(file=cu.file, start_line=a + shift, end_line=b + shift,
                                 quote="\n".join(lines[a + shift - 1:b + shift])) for a, b in cited]
    return spans
