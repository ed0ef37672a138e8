"""How many calls the many-calls probe makes: all of them where the submission could keep something
between calls, a short run where the static read finds nothing it could keep.

A call can depend on the calls before it only through something that outlives it. The source shows
where such state is written (tools/engine/kept_state.py finds every write: a ``global``, a module-level
container or object, a class or instance attribute updated on a call, a functools cache); what that
reader cannot follow counts as state as well (``kept_by``):

- names reached dynamically: ``globals()``, ``vars()``, ``setattr``/``delattr``, ``exec``/``eval``/
  ``compile``, ``__import__``/``importlib``, ``sys.modules``, ``__dict__``/``__globals__``, ``builtins``,
  ``ctypes``, ``gc``;
- a ``nonlocal`` (a closure's cell), a mutable default argument, an attribute or item written on a name
  that is neither local nor ``self`` (a function's attribute, an imported module);
- a tensor changed in place (``x.add_``, ``out=``) that is not the call's own;
- a module-level object that is not a plain constant, or an instance attribute built in ``__init__``
  from a call, read on a call (device code may write into a buffer it is handed);
- what lives outside the process's Python objects, or changes by itself: files (``open``,
  ``torch.save``), the environment, random number generators, clocks, threads;
- caches of compiled code keyed by the arguments: ``triton.autotune``, ``torch.compile``, ``torch.jit``;
- code the reader does not parse: a file that does not parse, C/C++/CUDA sources (``load_inline``,
  ``static`` variables), a file that is not Python.

Kernel bodies (device code) and the ``if __name__ == "__main__":`` block are not read for writes, as in
kept_state. Reads are lexical, so a submission can always hide state from a static read; the short run
is for kernels whose source gives nothing to hide it in, and it still covers every kind of call of the
probe's pattern several times (``SHORT_CALLS``).
"""

from __future__ import annotations

import ast

from tools.engine.kept_state import state_writes
from tools.engine.source import SourceFile, dotted, in_kernel, in_main_block

# Names and dotted prefixes whose use the state reader cannot follow (see the module docstring).
_DYNAMIC = {"globals", "vars", "setattr", "delattr", "exec", "eval", "compile", "__import__", "open", "input",
            "breakpoint"}
_DYNAMIC_PREFIXES = ("importlib", "sys.modules", "sys.setprofile", "sys.settrace", "builtins", "ctypes", "gc.",
                     "random", "numpy.random", "np.random", "torch.rand", "torch.manual_seed", "torch.seed",
                     "torch.Generator", "torch.random", "torch.cuda.manual_seed", "secrets", "os.urandom", "uuid",
                     "time", "datetime", "threading", "multiprocessing", "concurrent", "asyncio", "atexit",
                     "signal", "os.environ", "os.putenv", "os.system", "subprocess", "tempfile", "shelve",
                     "pickle", "torch.save", "torch.load", "numpy.save", "np.save", "pathlib", "shutil", "os.",
                     "triton.autotune", "torch.compile", "torch.jit", "torch._dynamo",
                     "torch.utils.cpp_extension", "cffi", "weakref", "functools.cache", "functools.lru_cache")
_DUNDERS = {"__dict__", "__globals__", "__builtins__", "__closure__", "__code__", "__defaults__",
            "__kwdefaults__", "__setattr__", "__setitem__", "__class__"}
# Rationale: a module-level value built by one of these (from constants) holds nothing a call can change but
# through a write kept_state reads (a dict's item).
_CONSTANT_CALLS = {"int", "float", "str", "bool", "bytes", "tuple", "frozenset", "range", "dict", "list", "set", "len", "abs", "min", "max",
                   "round", "torch.device", "torch.dtype", "torch.finfo", "torch.iinfo", "triton.cdiv",
                   "triton.next_power_of_2", "triton.language.constexpr", "triton.Config", "typing.TypeVar",
                   "collections.namedtuple", "typing.NamedTuple", "torch.get_default_dtype", "jax.numpy.dtype",
                   "numpy.dtype", "logging.getLogger"}
_NATIVE_MARKERS = ("load_inline", "cpp_extension", "cpp_sources", "cuda_sources", "ctypes", "cffi", "CDLL")
# Rationale: the probe's pattern has 8 kinds of call (reuse, copy, fresh on two contents); three rounds of
# it show an answer that depends on what the call before did (replay, an input kept by address) as the
# full run does, at a thirteenth of its calls.
SHORT_CALLS = 25


def kept_by(files: dict[str, str | None]) -> list[str]:
    """What in ``files`` (name -> text; None: the text could not be read) could keep something between
    calls, in plain words; empty when the static read finds nothing (see the module docstring)."""
    out: list[str] = []
    for name, text in files.items():
        if text is None:
            out.append(f"{name} could not be read")
            continue
        if not name.endswith(".py"):
            out.append(f"{name} is not Python (its state is not read)")
            continue
        marker = next((m for m in _NATIVE_MARKERS if m in text), None)
        if marker is not None:
            out.append(f"{name} builds native code ({marker}), whose state is not read")
            continue
        from tools.engine.source import source_file

        src = source_file(name, text)
        if src is None:
            out.append(f"{name} does not parse")
            continue
        out += [f"{name}:{w.line} {w.plain()}" for w in state_writes(src) if w.when != "import"
                and not (w.when == "construction" and w.kind in ("instance", "instance_assign"))]
        out += [f"{name}:{line} {why}" for line, why in _opaque(src)]
    return out


def _opaque(src: SourceFile) -> list[tuple[int, str]]:
    """(line, why) for each use of something the state reader cannot follow, in host code."""
    out: list[tuple[int, str]] = []
    module = _module_values(src)
    built = _built_in_init(src)
    for node in ast.walk(src.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not in_main_block(src, node):
            for deco in node.decorator_list:  # a kernel's too: @triton.autotune keeps a table of timings
                name = dotted(src, deco.func if isinstance(deco, ast.Call) else deco) or ""
                if name.startswith(_DYNAMIC_PREFIXES):
                    out.append((node.lineno, f"{node.name}() is decorated with {name} (a cache of its arguments)"))
        if in_kernel(src, node) or in_main_block(src, node) or node in src.kernels:
            continue
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Nonlocal):
            out.append((line, f"nonlocal {', '.join(node.names)} (a closure's cell survives the call)"))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in [*node.args.defaults, *[k for k in node.args.kw_defaults if k is not None]]:
                if not _constant(src, d) or isinstance(d, (ast.List, ast.Dict, ast.Set)):
                    out.append((line, f"{node.name}() has a default argument built once ({ast.unparse(d)[:40]})"))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            fn = _function_of(src, node)
            if node.id in _DYNAMIC and fn is not None:
                out.append((line, f"calls {node.id}()"))
            elif node.id in module and fn is not None:
                out.append((line, f"{fn.name}() reads the module-level object {node.id} "
                                  f"({module[node.id][:40]}), which code it is handed may change"))
        elif isinstance(node, ast.Attribute):
            name = dotted(src, node) or ""
            fn = _function_of(src, node)
            if node.attr in _DUNDERS:
                out.append((line, f"reaches .{node.attr}"))
            elif fn is not None and name.startswith(_DYNAMIC_PREFIXES):
                out.append((line, f"{fn.name}() uses {name}"))
            elif (fn is not None and fn.name != "__init__" and isinstance(node.value, ast.Name)
                  and node.value.id == "self" and node.attr in built):
                out.append((line, f"{fn.name}() reads self.{node.attr}, built in __init__ by "
                                  f"{built[node.attr][:40]}, which code it is handed may change"))
        if isinstance(node, ast.Call):
            out += _in_place(src, node)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            out += _foreign_stores(src, node)
    return sorted(set(out))


def _function_of(src: SourceFile, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    cur = src.parents.get(node)
    while cur is not None:
        if isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return cur
        cur = src.parents.get(cur)
    return None


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = fn.args
    return {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if p is not None}


def _locals(src: SourceFile, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The function's own names, and the parameters of the functions around it (a Pallas kernel's nested
    ``@pl.when`` body writes its enclosing kernel's ``o_ref``); an enclosing function's other locals are
    not: a factory's ``cache = {}`` outlives the calls of the function it returns."""
    stored = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    declared = {n for g in ast.walk(fn) if isinstance(g, (ast.Global, ast.Nonlocal)) for n in g.names}
    outer: set[str] = set()
    cur = src.parents.get(fn)
    while cur is not None:
        if isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef)):
            outer |= _params(cur)
        cur = src.parents.get(cur)
    return (_params(fn) | stored | outer) - declared - {"self", "cls"}


def _root(node: ast.AST) -> ast.AST:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _foreign_stores(src: SourceFile, node: ast.AST) -> list[tuple[int, str]]:
    """Stores to an attribute or item of a name that is neither the function's own nor ``self``."""
    fn = _function_of(src, node)
    if fn is None:
        return []
    targets = (node.targets if isinstance(node, (ast.Assign, ast.Delete))
               else [node.target])  # type: ignore[attr-defined]
    out = []
    mine = _locals(src, fn)
    for t in [e for t in targets for e in ast.walk(t) if isinstance(e, (ast.Attribute, ast.Subscript))]:
        root = _root(t)
        if isinstance(root, ast.Name) and root.id not in mine and root.id != "self":
            out.append((node.lineno, f"{fn.name}() writes {ast.unparse(t)[:40]}, outside the call"))
    return out


def _in_place(src: SourceFile, node: ast.Call) -> list[tuple[int, str]]:
    """``t.add_(..)``, ``torch.add(.., out=t)`` on a tensor that is not the call's own local."""
    fn = _function_of(src, node)
    if fn is None:
        return []
    mine = _locals(src, fn)
    changed: list[ast.AST] = [kw.value for kw in node.keywords if kw.arg == "out"]
    if (isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_")
            and not node.func.attr.startswith("_")):
        changed.append(node.func.value)
    out = []
    for obj in changed:
        root = _root(obj)
        if isinstance(root, ast.Name) and root.id not in mine:
            out.append((node.lineno, f"{fn.name}() changes {ast.unparse(obj)[:40]} in place, outside the call"))
    return out


def _module_values(src: SourceFile) -> dict[str, str]:
    """Module-level names bound to something other than a constant: name -> its source text."""
    out: dict[str, str] = {}
    for stmt in src.tree.body:
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        if _constant(src, value):
            continue
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    out[n.id] = ast.unparse(value)
    return out


def _constant(src: SourceFile, value: ast.AST) -> bool:
    """A value no call can change: literals, names and attributes (``tl.float32``), arithmetic on them,
    tuples, lists, sets and dicts of them (writes to those are kept_state's), a call of ``_CONSTANT_CALLS``."""
    if isinstance(value, (ast.Constant, ast.Name, ast.Attribute, ast.Lambda)):
        return True
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        return all(_constant(src, e) for e in value.elts)
    if isinstance(value, ast.Dict):
        return all(_constant(src, e) for e in [*value.keys, *value.values] if e is not None)
    if isinstance(value, ast.BinOp):
        return _constant(src, value.left) and _constant(src, value.right)
    if isinstance(value, ast.UnaryOp):
        return _constant(src, value.operand)
    if isinstance(value, ast.Call):
        name = dotted(src, value.func) or ast.unparse(value.func)
        return (name in _CONSTANT_CALLS or name.startswith("math.")) and all(
            _constant(src, a) for a in [*value.args, *[k.value for k in value.keywords]])
    return False


def _built_in_init(src: SourceFile) -> dict[str, str]:
    """``self.<attr>`` assigned in an ``__init__`` from something other than a constant: attr -> its text."""
    out: dict[str, str] = {}
    for name, fn in src.functions.items():
        if not name.endswith(".__init__"):
            continue
        for node in ast.walk(fn):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if _constant(src, node.value):
                    continue
                for t in targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        out[t.attr] = ast.unparse(node.value)
    return out
