"""Find the CUDA C/C++ a submission compiles, without running any of its code.

Sources found:
- ``torch.utils.cpp_extension.load_inline(..., cuda_sources=..., cpp_sources=...)`` in Python files:
  the arguments are recovered statically from string literals, names assigned string literals (module
  or enclosing-function scope), ``+`` concatenation, lists/tuples, f-strings whose fields are such
  names, ``.strip()``/``.replace()``/``textwrap.dedent()``/``"".join([...])`` and
  ``open(path).read()`` / ``Path(path).read_text()`` of a file inside the submission;
- ``torch.utils.cpp_extension.load(name, sources=[...])``: the ``.cu`` files it names;
- every other ``.cu`` file in the submission directory.

Nothing is imported or executed: the Python files are parsed with :mod:`ast`. A source that cannot be
recovered that way (built at run time) is returned with ``text=None`` and ``unresolved`` saying why,
so a caller can report it as unverified rather than skip it.

Public API::

    find_cuda_sources(root, files=None) -> list[CudaSource]   # a submission directory
    extract_from_python(text, filename, root=None) -> list[CudaSource]   # one Python file
    translation_unit(src) -> str     # the .cu text nvcc sees (load_inline's implicit headers added)
    kernel_names(cuda_text) -> list[str]       # names of __global__ functions
    launch_sites(cuda_text) -> list[LaunchSite]  # kernel<<<grid, block, smem, stream>>> sites

``CudaSource.line`` is the 1-based line in ``CudaSource.file`` where the text starts (the string
literal, or 1 for a .cu file), so a caller can map a compiler's line numbers back to the submission.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tools.engine.source import parse as parse_source

# What load_inline prepends (torch/utils/cpp_extension.py, unless no_implicit_headers=True).
IMPLICIT_CUDA_HEADERS = ("#include <torch/types.h>", "#include <cuda.h>", "#include <cuda_runtime.h>")
_MAX_FILE = 2 * 2**20


@dataclass(frozen=True)
class CudaSource:
    origin: Literal["load_inline", "load", "file"]
    file: str
    """the submission-relative file the text comes from (the Python file for load_inline)"""
    line: int
    text: str | None
    name: str | None = None
    """the extension's ``name=`` (load_inline/load), if known"""
    functions: tuple[str, ...] = ()
    cpp_text: str | None = None
    extra_cuda_cflags: tuple[str, ...] = ()
    implicit_headers: bool = True
    unresolved: str | None = None

    @property
    def label(self) -> str:
        return f"{self.name or Path(self.file).stem} ({self.origin}, {self.file}:{self.line})"


@dataclass(frozen=True)
class LaunchSite:
    kernel: str
    template_args: str | None
    grid: str
    block: str
    smem: str | None
    line: int
    block_threads: int | None = None
    dynamic_smem: int | None = None


class _Unresolved(Exception):
    pass


def _is_load_call(node: ast.Call, name: str) -> bool:
    f = node.func
    return (isinstance(f, ast.Name) and f.id == name) or (isinstance(f, ast.Attribute) and f.attr == name)


class _Evaluator:
    def __init__(self, scopes: list[dict[str, ast.expr]], root: Path | None, depth: int = 0) -> None:
        self.scopes = scopes
        self.root = root
        self.depth = depth

    def lookup(self, name: str) -> ast.expr:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        raise _Unresolved(f"{name!r} is not assigned a value that can be read without running the code")

    def value(self, node: ast.expr) -> Any:
        if self.depth > 50:
            raise _Unresolved("expression too deeply nested")
        self.depth += 1
        try:
            return self._value(node)
        finally:
            self.depth -= 1

    def _value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
            return node.value
        if isinstance(node, ast.Name):
            return self.value(self.lookup(node.id))
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.value(e) for e in node.elts]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.value(node.left), self.value(node.right)
            if isinstance(left, type(right)) or isinstance(right, type(left)):
                return left + right
            raise _Unresolved("'+' of values of different types")
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                elif isinstance(v, ast.FormattedValue) and v.format_spec is None and v.conversion == -1:
                    parts.append(str(self.value(v.value)))
                else:
                    raise _Unresolved("f-string with a format spec or conversion")
            return "".join(parts)
        if isinstance(node, ast.Dict):
            return {self.value(k): self.value(v) for k, v in zip(node.keys, node.values) if k is not None}
        if isinstance(node, ast.Call):
            return self._call(node)
        raise _Unresolved(f"{type(node).__name__} expression is computed at run time")

    def _call(self, node: ast.Call) -> Any:
        f = node.func
        if isinstance(f, ast.Attribute):
            if f.attr in ("strip", "lstrip", "rstrip") and not node.args:
                return getattr(self.value(f.value), f.attr)()
            if f.attr == "replace" and len(node.args) == 2:
                return self.value(f.value).replace(self.value(node.args[0]), self.value(node.args[1]))
            if f.attr == "join" and len(node.args) == 1:
                return self.value(f.value).join(self.value(node.args[0]))
            if f.attr == "format" and not node.args:
                return self.value(f.value).format(**{k.arg: self.value(k.value) for k in node.keywords if k.arg})
            if f.attr == "dedent":
                return textwrap.dedent(self.value(node.args[0]))
            if f.attr in ("read", "read_text") and isinstance(f.value, ast.Call):
                return self._read(f.value)
        if isinstance(f, ast.Name) and f.id == "dedent" and node.args:
            return textwrap.dedent(self.value(node.args[0]))
        raise _Unresolved(f"call to {ast.unparse(f)} is evaluated at run time")

    def _read(self, opener: ast.Call) -> str:
        """``open(p).read()`` / ``Path(p).read_text()`` of a file inside the submission directory."""
        if self.root is None or not opener.args:
            raise _Unresolved("file read outside a submission directory")
        rel = self.value(opener.args[0])
        if not isinstance(rel, str):
            raise _Unresolved("file name is not a string")
        path = (self.root / rel).resolve()
        if not path.is_relative_to(self.root.resolve()) or not path.is_file() or path.stat().st_size > _MAX_FILE:
            raise _Unresolved(f"{rel} is not a readable file inside the submission")
        return path.read_text(errors="replace")


def _collect(body: list[ast.stmt]) -> dict[str, ast.expr]:
    out: dict[str, ast.expr] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            out[stmt.target.id] = stmt.value
        elif isinstance(stmt, (ast.If, ast.With, ast.Try)):
            # Rationale: sources guarded by `if`/`with`/`try` are still the ones compiled in practice.
            out.update(_collect([s for s in ast.iter_child_nodes(stmt) if isinstance(s, ast.stmt)]))
    return out


def _argument(call: ast.Call, keyword: str, position: int | None) -> ast.expr | None:
    for k in call.keywords:
        if k.arg == keyword:
            return k.value
    if position is not None and len(call.args) > position:
        return call.args[position]
    return None


def _text_of(ev: _Evaluator, node: ast.expr | None) -> tuple[str | None, str | None]:
    if node is None:
        return None, None
    try:
        value = ev.value(node)
    except _Unresolved as exc:
        return None, str(exc)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        return None, f"could not evaluate statically: {exc}"
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            return None, "a source list holds non-strings"
        return "\n".join(value), None
    if isinstance(value, str):
        return value, None
    return None, f"evaluates to {type(value).__name__}, not source text"


def _literal_line(node: ast.expr | None, scopes: list[dict[str, ast.expr]], default: int) -> int:
    """Line where the source text starts: the literal itself when the argument is a name."""
    seen = 0
    while isinstance(node, ast.Name) and seen < 10:
        nxt = next((s[node.id] for s in reversed(scopes) if node.id in s), None)
        if nxt is None:
            break
        node = nxt
        seen += 1
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        # a triple-quoted literal starting with a newline: its text begins on the next line
        return node.lineno + (1 if node.value.startswith("\n") else 0)
    return getattr(node, "lineno", default) or default


def _strings(ev: _Evaluator, node: ast.expr | None) -> tuple[str, ...]:
    if node is None:
        return ()
    try:
        value = ev.value(node)
    except (_Unresolved, TypeError, ValueError):
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, dict):
        return tuple(str(k) for k in value)
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def extract_from_python(text: str, filename: str, root: Path | None = None) -> list[CudaSource]:
    """CUDA sources of the load_inline/load calls in one Python file (``filename`` relative to root)."""
    try:
        tree = parse_source(text, filename)
    except SyntaxError:
        return []
    module_scope = _collect(tree.body)
    found: list[CudaSource] = []

    def visit(body: list[ast.stmt], scopes: list[dict[str, ast.expr]]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(stmt.body, [*scopes, _collect(stmt.body)])
                continue
            if isinstance(stmt, ast.ClassDef):
                visit(stmt.body, [*scopes, _collect(stmt.body)])
                continue
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call):
                    handle(node, scopes)

    def handle(call: ast.Call, scopes: list[dict[str, ast.expr]]) -> None:
        ev = _Evaluator(scopes, root)
        if _is_load_call(call, "load_inline"):
            name = _strings(ev, _argument(call, "name", 0))
            cuda_node = _argument(call, "cuda_sources", 2)
            cpp, _ = _text_of(ev, _argument(call, "cpp_sources", 1))
            no_implicit = _argument(call, "no_implicit_headers", None)
            implicit = not (isinstance(no_implicit, ast.Constant) and no_implicit.value is True)
            if cuda_node is None:
                return
            cuda, why = _text_of(ev, cuda_node)
            found.append(CudaSource(origin="load_inline", file=filename,
                                    line=_literal_line(cuda_node, scopes, call.lineno), text=cuda,
                                    name=name[0] if name else None,
                                    functions=_strings(ev, _argument(call, "functions", 3)), cpp_text=cpp,
                                    extra_cuda_cflags=_strings(ev, _argument(call, "extra_cuda_cflags", None)),
                                    implicit_headers=implicit, unresolved=why))
        elif _is_load_call(call, "load") and _argument(call, "sources", 1) is not None:
            name = _strings(ev, _argument(call, "name", 0))
            node = _argument(call, "sources", 1)
            try:
                files = ev.value(node)
            except _Unresolved as exc:
                found.append(CudaSource(origin="load", file=filename, line=call.lineno, text=None,
                                        name=name[0] if name else None, unresolved=str(exc)))
                return
            flags = _strings(ev, _argument(call, "extra_cuda_cflags", None))
            for rel in files if isinstance(files, list) else [files]:
                if not isinstance(rel, str) or not rel.endswith((".cu", ".cuh")):
                    continue
                found.append(_file_source(root, rel, "load", name[0] if name else None, flags))

    visit(tree.body, [module_scope])
    return found


def _file_source(root: Path | None, rel: str, origin: Literal["load", "file"], name: str | None = None,
                 flags: tuple[str, ...] = ()) -> CudaSource:
    if root is None:
        return CudaSource(origin=origin, file=rel, line=1, text=None, name=name, unresolved="no submission root")
    path = (root / rel).resolve()
    if not path.is_relative_to(root.resolve()) or not path.is_file():
        return CudaSource(origin=origin, file=rel, line=1, text=None, name=name,
                          unresolved=f"{rel} is not a file inside the submission")
    if path.stat().st_size > _MAX_FILE:
        return CudaSource(origin=origin, file=rel, line=1, text=None, name=name, unresolved=f"{rel} is too large")
    return CudaSource(origin=origin, file=str(path.relative_to(root.resolve())), line=1,
                      text=path.read_text(errors="replace"), name=name, extra_cuda_cflags=flags,
                      implicit_headers=False)


def find_cuda_sources(root: Path, files: list[str] | None = None) -> list[CudaSource]:
    """Every CUDA source of a submission directory: load_inline/load in its Python files (``files``,
    or all ``*.py`` under ``root``), then the remaining ``.cu`` files."""
    root = Path(root)
    py_files = files if files is not None else sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))
    out: list[CudaSource] = []
    for rel in py_files:
        path = root / rel
        if not rel.endswith(".py") or not path.is_file() or path.stat().st_size > _MAX_FILE:
            continue
        out += extract_from_python(path.read_text(errors="replace"), rel, root)
    named = {s.file for s in out if s.origin == "load"}
    for cu in sorted(root.rglob("*.cu")):
        rel = str(cu.relative_to(root))
        if rel not in named and not any(part.startswith(".") for part in cu.relative_to(root).parts):
            out.append(_file_source(root, rel, "file"))
    return out


def translation_unit(src: CudaSource) -> str:
    """The file nvcc compiles for ``src``: load_inline prepends its implicit headers."""
    if src.text is None:
        raise ValueError(f"{src.label}: source text unresolved ({src.unresolved})")
    if src.origin == "load_inline" and src.implicit_headers:
        return "\n".join([*IMPLICIT_CUDA_HEADERS, src.text])
    return src.text


# -- reading CUDA C ---------------------------------------------------------------------------

def strip_comments(text: str) -> str:
    """Comments replaced by spaces (newlines kept, so line numbers stay valid)."""
    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    out, pos = [], 0
    for m in re.finditer(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', text, flags=re.DOTALL):
        out.append(text[pos:m.start()])
        out.append(m.group(0) if m.group(0).startswith('"') else blank(m))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


LAUNCH_BOUNDS = re.compile(r"__launch_bounds__\s*\([^)]*\)")
# a __global__ function's name, the match ending at its parameter list's "(" (launch bounds blanked first)
GLOBAL_FUNCTION = re.compile(r"__global__\s[^(;{}]*?(\w+)\s*\(")


def kernel_names(cuda_text: str) -> list[str]:
    """Names of the ``__global__`` functions, in order of appearance."""
    names: list[str] = []
    for m in GLOBAL_FUNCTION.finditer(LAUNCH_BOUNDS.sub(" ", strip_comments(cuda_text))):
        if m.group(1) not in names:
            names.append(m.group(1))
    return names


def launch_bounds(cuda_text: str) -> dict[str, int]:
    """``__launch_bounds__(N)`` of each kernel that has one, when N is a literal or a known constant."""
    text = strip_comments(cuda_text)
    consts = int_constants(text)
    out: dict[str, int] = {}
    for m in re.finditer(r"__launch_bounds__\s*\(\s*([^,)]+)[^)]*\)[^(;{]*?(\w+)\s*\(", text):
        value = evaluate_int(m.group(1), consts)
        if value is not None:
            out[m.group(2)] = value
    return out


_LAUNCH = re.compile(r"\b(\w+)\s*(<(?:[^<>;]|<[^<>;]*>)*>)?\s*<<<(.*?)>>>", re.DOTALL)


def split_top(args: str) -> list[str]:
    """``args`` split at its top-level commas (not inside brackets or template arguments)."""
    parts, depth, cur = [], 0, []
    for ch in args:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur).strip())
    return parts


def int_constants(text: str) -> dict[str, int]:
    """Integer constants a launch configuration may name: ``#define N 256``, ``const int N = 256;``,
    ``constexpr int N = 256;``, ``int N = 256;`` (the last assignment wins)."""
    out: dict[str, int] = {}
    for m in re.finditer(r"^\s*#\s*define\s+(\w+)\s+\(?\s*(\d+)\s*\)?\s*$", text, flags=re.MULTILINE):
        out[m.group(1)] = int(m.group(2))
    for m in re.finditer(r"\b(?:const\s+|constexpr\s+|static\s+)*(?:unsigned\s+)?(?:int|size_t|int64_t|int32_t|long|"
                         r"unsigned|uint32_t|auto)\s+(\w+)\s*=\s*([\w\s\*\+\-/()]+?)\s*;", text):
        value = evaluate_int(m.group(2), out)
        if value is not None:
            out[m.group(1)] = value
    return out


_SIZES = {"char": 1, "int8_t": 1, "uint8_t": 1, "short": 2, "half": 2, "__half": 2, "__nv_bfloat16": 2,
          "int16_t": 2, "float": 4, "int": 4, "unsigned": 4, "unsigned int": 4, "int32_t": 4, "uint32_t": 4,
          "half2": 4, "__half2": 4, "double": 8, "long": 8, "long long": 8, "int64_t": 8, "uint64_t": 8,
          "size_t": 8, "float2": 8, "float4": 16, "double2": 16}
_SIZEOF = re.compile(r"sizeof\s*\(\s*(" + "|".join(k.replace(" ", r"\s+") for k in sorted(_SIZES, key=len, reverse=True))
                     + r")\s*\)")


def evaluate_int(expr: str, consts: dict[str, int]) -> int | None:
    """A small integer expression of literals and known constants (``+ - * /``, parentheses and
    ``sizeof`` of scalar types)."""
    expr = _SIZEOF.sub(lambda m: str(_SIZES[" ".join(m.group(1).split())]), expr.strip())
    expr = re.sub(r"(\d+)(?:[uU]?[lL]{0,2}|[lL]{1,2}[uU]?)\b", r"\1", expr)
    if not re.fullmatch(r"[\w\s\*\+\-/()]+", expr):
        return None
    try:
        tree = ast.parse(expr.replace("/", "//"), mode="eval")
    except SyntaxError:
        return None

    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in consts:
            return consts[node.id]
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            ops = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}
            if isinstance(node.op, ast.FloorDiv) and b:
                return a // b
            if type(node.op) in ops:
                return ops[type(node.op)]
        raise ValueError

    try:
        return ev(tree)
    except (ValueError, RecursionError):
        return None


def _threads(block: str, text: str, consts: dict[str, int]) -> int | None:
    block = block.strip()
    m = re.fullmatch(r"dim3\s*\((.*)\)", block, flags=re.DOTALL)
    if m is not None:
        dims = [evaluate_int(d, consts) for d in split_top(m.group(1))]
        if all(d is not None for d in dims):
            n = 1
            for d in dims:
                n *= d  # type: ignore[operator]
            return n
        return None
    value = evaluate_int(block, consts)
    if value is not None:
        return value
    if re.fullmatch(r"\w+", block):
        decl = re.search(rf"\bdim3\s+{block}\s*[\({{](.*?)[\)}}]\s*;", text, flags=re.DOTALL)
        if decl is not None:
            return _threads(f"dim3({decl.group(1)})", text, consts)
    return None


def launch_sites(cuda_text: str) -> list[LaunchSite]:
    """``kernel<<<grid, block[, smem[, stream]]>>>`` sites, with the block size and dynamic shared
    memory evaluated when they are literals or simple known constants."""
    text = strip_comments(cuda_text)
    consts = int_constants(text)
    out = []
    for m in _LAUNCH.finditer(text):
        parts = split_top(m.group(3))
        if len(parts) < 2:
            continue
        smem = parts[2] if len(parts) > 2 else None
        out.append(LaunchSite(kernel=m.group(1), template_args=m.group(2)[1:-1].strip() if m.group(2) else None,
                              grid=parts[0], block=parts[1], smem=smem, line=text.count("\n", 0, m.start()) + 1,
                              block_threads=_threads(parts[1], text, consts),
                              dynamic_smem=0 if smem is None else evaluate_int(smem, consts)))
    return out
