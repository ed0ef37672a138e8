"""Static checks of NKI kernels on the syntax tree, for what one interpreted run cannot show.

Runs in the reviewer's process on the parsed source only (nothing is executed). Findings:

- ``affine_carried_dependency``: in an ``nl.affine_range`` loop, a tensor defined outside the loop is
  read before it is (re)written in the iteration (its value flows from the previous iteration), or is
  written at an index that does not depend on the loop variable (every iteration writes the same
  elements). ``+=`` is exempt: associative accumulation is allowed in affine loops.
- ``sequential_could_be_affine``: an ``nl.sequential_range`` or Python ``range`` loop (which the compiler
  turns into ``sequential_range``) issuing NKI operations with neither pattern: it could be parallel.
- ``tail_not_handled``: a trip count ``n // tile`` in a kernel with no mask, no ceiling division and no
  divisibility assertion: sizes that are not multiples of the tile drop their remainder.
- ``hard_coded_shape``: an HBM output allocated with a literal shape, or a kernel that never reads
  the shapes of its tensor arguments.
- ``partition_underuse``: a literal partition size below 128 that does not divide 128;
  ``partition_limit``: one above 128.
- ``control_flow_on_tensor``: ``if``/``while`` on a value computed by an NKI API.

Limits: name-based, intraprocedural (helper functions called from a kernel are not followed),
aliases of ``nki.language``/``nki.isa`` are resolved from the module's imports only.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

import tools.engine.nki.version as V
from tools.engine.source import parse as parse_source

_KERNEL_DECORATORS = ("jit", "baremetal", "benchmark", "trace", "profile")
_LOOPS = {"affine_range": "affine", "sequential_range": "sequential", "static_range": "static"}
_METADATA = ("shape", "dtype", "ndim", "buffer", "name")


class NkiStaticFinding(BaseModel):
    """One NKI static observation. Not ``tools.engine.backends.base.StaticFinding`` (a backend's
    source-only note, which the lowering tool records as a finding): each of these becomes an evidence
    item of the nki tool on its own criterion, with this module as its rerun command, and a finding
    the interpreted run may confirm (tools/nki/evidence.py:static_items)."""

    model_config = ConfigDict(extra="forbid")

    code: str
    severity: Literal["info", "warning", "error"]
    criterion: str
    kernel: str
    line: int
    end_line: int
    message: str


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return ""


def _aliases(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Local names of ``nki.language`` and ``nki.isa``."""
    lang, isa = {"nl"}, {"nisa"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.endswith("nki.language") and a.asname:
                    lang.add(a.asname)
                if a.name.endswith("nki.isa") and a.asname:
                    isa.add(a.asname)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").endswith("nki"):
            for a in node.names:
                if a.name == "language":
                    lang.add(a.asname or a.name)
                if a.name == "isa":
                    isa.add(a.asname or a.name)
    return lang, isa


def kernels(tree: ast.Module) -> list[ast.FunctionDef]:
    """Functions decorated with ``nki.jit`` (or baremetal/benchmark/...) or passed to ``simulate*``."""
    simulated = {node.args[0].id for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] in ("simulate_kernel", "simulate")
                 and node.args and isinstance(node.args[0], ast.Name)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            decos = [_dotted(d).split(".")[-1] for d in node.decorator_list]
            if any(d in _KERNEL_DECORATORS for d in decos) or node.name in simulated:
                out.append(node)
    return out


class _Kernel:
    def __init__(self, fn: ast.FunctionDef, lang: set[str], isa: set[str]) -> None:
        self.fn, self.lang, self.isa = fn, lang, isa
        self.findings: list[NkiStaticFinding] = []
        self.params = {a.arg for a in fn.args.args + fn.args.kwonlyargs}

    def add(self, code: str, severity: str, criterion: str, node: ast.AST, message: str) -> None:
        line = getattr(node, "lineno", self.fn.lineno)
        end = getattr(node, "end_lineno", line) or line
        if isinstance(node, ast.For):
            end = line
        self.findings.append(NkiStaticFinding(code=code, severity=severity, criterion=criterion,  # type: ignore[arg-type]
                                           kernel=self.fn.name, line=line, end_line=end, message=message))

    def is_nki_call(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and _dotted(node.func).split(".")[0] in self.lang | self.isa

    def api(self, node: ast.Call) -> str:
        parts = _dotted(node.func).split(".")
        return parts[-1] if parts[0] in self.lang | self.isa else ""

    def loop_kind(self, node: ast.For) -> str | None:
        if not isinstance(node.iter, ast.Call):
            return None
        name = _dotted(node.iter.func)
        if name == "range":
            return "range"
        head, _, tail = name.rpartition(".")
        return _LOOPS.get(tail) if head in self.lang else None

    # -- the checks ------------------------------------------------------------------------------
    def run(self) -> list[NkiStaticFinding]:
        self.check_loops()
        self.check_tail()
        self.check_shapes()
        self.check_partition_sizes()
        self.check_control_flow()
        return self.findings

    def bound_before(self, loop: ast.For) -> set[str]:
        names = set(self.params)
        for node in ast.walk(self.fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.lineno < loop.lineno:
                names.add(node.id)
        return names

    def loop_dependent(self, loop: ast.For) -> set[str]:
        """Names whose value depends on the loop variable (transitively, in body order)."""
        dep = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        for _ in range(3):
            for node in ast.walk(loop):
                if isinstance(node, ast.For) and node is not loop:
                    dep |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
                if isinstance(node, ast.Assign):
                    used = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
                    if used & dep:
                        for t in node.targets:
                            dep |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
        return dep

    def writes(self, loop: ast.For) -> list[tuple[str, ast.AST, ast.AST, bool]]:
        """(tensor name, index expression or target, statement, accumulate) for each write in the body."""
        out: list[tuple[str, ast.AST, ast.AST, bool]] = []
        for stmt in ast.walk(loop):
            if isinstance(stmt, (ast.Assign, ast.AugAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                acc = isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add)
                for t in targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                        out.append((t.value.id, t.slice, stmt, acc))
                    elif isinstance(t, ast.Name) and isinstance(stmt, ast.AugAssign):
                        out.append((t.id, t, stmt, acc))
            if isinstance(stmt, ast.Expr) and self.is_nki_call(stmt.value):
                call = stmt.value
                api = self.api(call)
                dst = None
                if api == "store":
                    dst = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "dst"), None)
                elif api in ("dma_copy", "tensor_copy_dynamic_dst"):
                    dst = next((k.value for k in call.keywords if k.arg == "dst"), None)
                acc = any(k.arg == "dst_rmw_op" for k in call.keywords)
                if isinstance(dst, ast.Subscript) and isinstance(dst.value, ast.Name):
                    out.append((dst.value.id, dst.slice, stmt, acc))
                elif isinstance(dst, ast.Name):
                    out.append((dst.id, dst, stmt, acc))
        return out

    def reads(self, loop: ast.For, name: str) -> list[tuple[int, str | None]]:
        """(line, index) of each data read of ``name`` in the body: not a write destination, not a
        metadata access (``.shape``/``.dtype``); index is the subscript's dump, None for the whole tensor."""
        parents = {id(c): p for p in ast.walk(loop) for c in ast.iter_child_nodes(p)}
        dests: set[int] = set()
        for stmt in ast.walk(loop):
            if isinstance(stmt, ast.Assign):
                for t in stmt.targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                        dests.add(id(t.value))
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Subscript):
                dests.add(id(stmt.target.value))
            if isinstance(stmt, ast.Expr) and self.is_nki_call(stmt.value):
                call = stmt.value
                if self.api(call) == "store" and call.args:
                    d = call.args[0]
                    dests.add(id(d.value) if isinstance(d, ast.Subscript) else id(d))
                for k in call.keywords:
                    if k.arg == "dst":
                        dests.add(id(k.value.value) if isinstance(k.value, ast.Subscript) else id(k.value))
        out: list[tuple[int, str | None]] = []
        for n in ast.walk(loop):
            if not (isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)) or id(n) in dests:
                continue
            parent = parents.get(id(n))
            if isinstance(parent, ast.Attribute) and parent.attr in _METADATA:
                continue
            index = ast.dump(parent.slice) if isinstance(parent, ast.Subscript) and parent.value is n else None
            out.append((n.lineno, index))
        return out

    def check_loops(self) -> None:
        for loop in ast.walk(self.fn):
            if not isinstance(loop, ast.For):
                continue
            kind = self.loop_kind(loop)
            if kind is None or kind == "static":
                continue
            outside = self.bound_before(loop)
            dep = self.loop_dependent(loop)
            hazards: list[tuple[ast.AST, str]] = []
            for name, index, stmt, acc in self.writes(loop):
                if name not in outside or acc:
                    continue
                used = {n.id for n in ast.walk(index) if isinstance(n, ast.Name)}
                private = bool(used & dep) and not isinstance(index, ast.Name)
                # Rationale: reading exactly the elements this iteration writes (same loop-dependent index)
                # is iteration-private; any other earlier read of the tensor sees another iteration's data.
                carried = [line for line, idx in self.reads(loop, name)
                           if line <= stmt.lineno and not (private and idx == ast.dump(index))]
                if carried:
                    hazards.append((stmt, (f"`{name}` is defined before the loop, read at line {min(carried)} and "
                                           f"written at line {stmt.lineno} in the same iteration: its value flows "
                                           "from one iteration to the next")))
                    continue
                if not private and not isinstance(index, ast.Name):
                    hazards.append((stmt, (f"every iteration writes the same elements of `{name}` (line "
                                           f"{stmt.lineno}: the index does not depend on the loop variable)")))
            if kind == "affine":
                for stmt, why in hazards:
                    self.add("affine_carried_dependency", "warning", "correctness", stmt,
                             f"nl.affine_range loop at line {loop.lineno}: {why}; affine iterations may run in any "
                             "order or overlap, so this needs nl.sequential_range (or a per-iteration tensor)")
            elif not hazards and any(self.is_nki_call(n) for n in ast.walk(loop)):
                what = "Python range (compiled as nl.sequential_range)" if kind == "range" else "nl.sequential_range"
                self.add("sequential_could_be_affine", "info", "performance", loop,
                         f"{what} loop at line {loop.lineno} shows no loop-carried dependency: nl.affine_range would "
                         "let the compiler pipeline its iterations")

    def check_tail(self) -> None:
        has_mask = any(isinstance(n, ast.keyword) and n.arg == "mask" for n in ast.walk(self.fn))
        has_ceil = any(isinstance(n, ast.Call) and _dotted(n.func).split(".")[-1] in ("ceil", "cdiv")
                       for n in ast.walk(self.fn))
        checks_mod = any(isinstance(n, (ast.Assert, ast.If)) and any(isinstance(b, ast.BinOp) and isinstance(b.op, ast.Mod)
                                                                   for b in ast.walk(n)) for n in ast.walk(self.fn))
        if has_mask or has_ceil or checks_mod:
            return
        for loop in ast.walk(self.fn):
            if isinstance(loop, ast.For) and self.loop_kind(loop) and isinstance(loop.iter, ast.Call):
                for arg in loop.iter.args:
                    if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.FloorDiv):
                        self.add("tail_not_handled", "warning", "generality", loop,
                                 f"trip count `{ast.unparse(arg)}` at line {loop.lineno} drops the remainder when the "
                                 "size is not a multiple of the tile, and the kernel has no mask and no divisibility "
                                 "assertion: those rows/columns are never computed")

    def check_shapes(self) -> None:
        reads_shape = any(isinstance(n, ast.Attribute) and n.attr == "shape" for n in ast.walk(self.fn))
        if self.params and not reads_shape:
            self.add("hard_coded_shape", "warning", "generality", self.fn,
                     f"kernel `{self.fn.name}` never reads the shape of its arguments: its sizes are hard-coded")
        for node in ast.walk(self.fn):
            if not (isinstance(node, ast.Call) and self.api(node) in ("ndarray", "zeros", "empty_like")):
                continue
            buf = next((k.value for k in node.keywords if k.arg == "buffer"), None)
            if buf is None or _dotted(buf).split(".")[-1] not in ("shared_hbm", "hbm", "private_hbm"):
                continue
            shape = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "shape"), None)
            if isinstance(shape, (ast.Tuple, ast.List)) and shape.elts and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, int) for e in shape.elts):
                self.add("hard_coded_shape", "warning", "generality", node,
                         f"output tensor allocated with the literal shape {ast.unparse(shape)}: the kernel only "
                         "handles that one size")

    def check_partition_sizes(self) -> None:
        seen: set[int] = set()
        for node in ast.walk(self.fn):
            size = None
            if isinstance(node, ast.Call) and self.api(node) in ("ndarray", "zeros", "ones", "full") and node.args:
                buf = next((k.value for k in node.keywords if k.arg == "buffer"), None)
                if buf is None or _dotted(buf).split(".")[-1] in ("sbuf", "psum"):
                    shape = node.args[0]
                    if isinstance(shape, (ast.Tuple, ast.List)) and shape.elts and isinstance(shape.elts[0], ast.Constant):
                        size = shape.elts[0].value
            if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call) and self.api(node.value) == "arange"
                    and len(node.value.args) == 1 and isinstance(node.value.args[0], ast.Constant)
                    and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2
                    and isinstance(node.slice.elts[1], ast.Constant) and node.slice.elts[1].value is None):
                size = node.value.args[0].value  # nl.arange(C)[:, None]: a partition index of C rows
            if not isinstance(size, int) or node.lineno in seen:
                continue
            if size > V.PMAX:
                seen.add(node.lineno)
                self.add("partition_limit", "error", "builds", node,
                         f"tile with partition size {size}: exceeds the architecture limit of {V.PMAX}")
            elif 0 < size < V.PMAX and V.PMAX % size:
                seen.add(node.lineno)
                self.add("partition_underuse", "info", "performance", node,
                         f"tile with a literal partition size {size}, not a divisor of {V.PMAX}: {V.PMAX - size} of "
                         f"{V.PMAX} partitions (engine lanes) idle in every instruction on it")

    def check_control_flow(self) -> None:
        computed = set()
        for node in ast.walk(self.fn):
            if isinstance(node, ast.Assign) and self.is_nki_call(node.value) and self.api(node.value) not in (
                    "arange", "program_id", "num_programs", "program_ndim", "ds"):
                computed |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        for node in ast.walk(self.fn):
            if isinstance(node, (ast.If, ast.While)):
                used = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
                hit = used & computed
                if hit:
                    self.add("control_flow_on_tensor", "error", "builds", node,
                             f"`{'if' if isinstance(node, ast.If) else 'while'}` on `{min(hit)}`, a tensor "
                             "computed on the device: NKI does not support control flow on tensor values")


def check_source(source: str, filename: str = "<submission>") -> list[NkiStaticFinding]:
    try:
        tree = parse_source(source, filename)
    except SyntaxError:
        return []
    lang, isa = _aliases(tree)
    out: list[NkiStaticFinding] = []
    for fn in kernels(tree):
        out += _Kernel(fn, lang, isa).run()
    return sorted(out, key=lambda f: (f.line, f.code))


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.stderr.write("usage: python -m tools.nki.static KERNEL.py\n")
        return 2
    path = Path(argv[1])
    findings = check_source(path.read_text(errors="replace"), str(path))
    sys.stdout.write(json.dumps([f.model_dump() for f in findings], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
