"""Branches of the submission's host code that no configuration took, and why each matters or not.

The child measures which line-to-line arcs of the submission's own files ran in every generality
call (instrument ``host_coverage``, coverage.py). Here the arcs the source allows (coverage.py's
parser) are compared with the arcs that ran: a branch line with an exit never taken is a *branch
side not reached*, named by its condition and line. Only host code counts: functions that ran at
least once and are not kernels (``@triton.jit`` and the like); module-level code runs at import,
before any measured call, and a function the task never calls is not a path of the task.

Each side not reached is classified by what its condition reads:

- ``threshold``: the condition compares a value with an integer constant (``if n_cols > 8192:``);
  sizes on each side of it are probed (tools/generality/paths.py gives the values).
- ``input``: any other condition on the call's inputs (dtype, strides, a value): it leaves the
  criterion unverified when no configuration reached it.
- reported as info, never unverified: ``invalid_input`` (the side only raises: refusing an input is
  not a path that computes), ``device`` (tools/generality/device_paths.py reports those), ``main_guard``,
  ``constant`` (the condition reads only module-level names that are not size knobs, environment
  flags or constants: nothing the inputs change), ``rank`` (the number of dimensions, which the task's
  inputs fix and no axis varies), ``optional_argument`` (a parameter with a default tested against
  None or for truth, or any value tested only against None: the task's calls always give it or never
  do), ``mode`` (a value compared only with string constants or tested with ``isinstance``: a mode
  or type the task fixes, or autograd state such as ``x.requires_grad``), ``empty_input`` (a size compared with 0: the plan has no empty sizes),
  ``construction`` (only ``self.`` attributes:
  the module's construction, which the task fixes), ``outside_contract`` (dtype or layout tests where
  the task's generator fixes both), ``loop_exit`` (a loop that never ended by exhausting its iterator),
  ``kept_state`` (a lookup in a container that outlives the call: ``key in _CACHE``, ``self._memo.get(k)``;
  whether it hits depends on earlier calls, not on this call's inputs, and integrity's repeated-call and
  in-place probes are the checks that exercise it: tools/integrity/many_calls.py; also a comparison
  with state the call path writes: ``self._last_input is x``, a ``global`` counter; the state written comes
  from tools/engine/kept_state.py), ``alignment``
  (``x.data_ptr() % 16``: only a storage offset reaches it, which the layouts axis runs; a wrapper's
  own fresh allocations are always aligned).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from coverage.parser import PythonParser

from tools.engine.kept_state import state_writes
from tools.engine.source import SourceFile, source_file
from tools.generality.device_paths import _device_test
from tools.generality.paths import Threshold, condition_thresholds, is_kernel, module_constants

Kind = Literal["threshold", "input", "invalid_input", "device", "main_guard", "constant", "rank",
               "optional_argument", "mode", "empty_input", "construction", "outside_contract", "loop_exit",
               "kept_state", "alignment"]
# the kinds whose unreached side leaves generality unverified
INPUT_KINDS: frozenset[str] = frozenset({"threshold", "input"})

_RANK_CALLS = {"dim", "ndimension"}
_AUTOGRAD = {"requires_grad", "grad_fn", "is_leaf"}
_LAYOUT_WORDS = ("is_contiguous", "stride", "storage_offset", "contiguous")


@dataclass(frozen=True)
class UntakenSide:
    """One exit of a branch line never taken."""
    file: str
    line: int
    target: int
    statement: str
    """``if``, ``elif``, ``while`` or ``for``."""
    condition: str
    side: str
    """``true`` / ``false`` (if, while), ``body`` / ``exit`` (for)."""
    kind: Kind
    reason: str
    thresholds: tuple[Threshold, ...] = ()

    def describe(self) -> str:
        what = {"true": "never true", "false": "never false", "body": "body never ran",
                "exit": "never finished its iterations"}[self.side]
        head = f"{self.statement} {self.condition}"
        return f"`{head}` ({self.file}:{self.line}) {what}"

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.file, self.line, self.target)

    def record(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "to_line": self.target, "statement": self.statement,
                "condition": self.condition, "side": self.side, "kind": self.kind, "reason": self.reason,
                "thresholds": [t.value for t in self.thresholds]}


@dataclass
class HostCoverage:
    """The arcs that ran, per file, accumulated over every measured call of a review."""
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    """the instrument's options (which files are the submission's)"""
    arcs: dict[str, set[tuple[int, int]]] = field(default_factory=dict)
    calls: int = 0
    errors: list[str] = field(default_factory=list)
    aimed: dict[tuple[str, int, int], list[dict[str, Any]]] = field(default_factory=dict)
    """per branch side: the configurations run to reach it, with their verdicts"""

    def add(self, observed: dict[str, Any] | None) -> None:
        if not observed:
            return
        self.calls += 1
        if observed.get("error") and observed["error"] not in self.errors:
            self.errors.append(str(observed["error"])[:300])
        for rel, arcs in (observed.get("arcs") or {}).items():
            self.arcs.setdefault(rel, set()).update((int(a), int(b)) for a, b in arcs)


def observed_coverage(ev: Any) -> dict[str, Any] | None:
    """What ``host_coverage`` saw in one evaluation's call (also when the call raised)."""
    run = getattr(ev, "run", None)
    if run is None:
        return None
    found = (run.meta.get("instruments") or {}).get("host_coverage")
    if found is None and run.call.error:
        found = (run.call.error.get("instruments") or {}).get("host_coverage")
    return found if isinstance(found, dict) else None


@dataclass
class _Function:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    first: int
    last: int
    kernel: bool
    params: dict[str, bool]
    """parameter name -> whether it has a default"""
    locals: set[str]


def _kernel(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A device kernel (``@triton.jit``, ``@nki.jit``, autotune, heuristics); a function JAX or
    PyTorch compiles (``@jax.jit``, ``@torch.compile``) is host code traced once per shape."""
    hosts = ("jax.", "partial(jax.", "functools.partial(jax.", "torch.")
    return is_kernel(fn) and not all(ast.unparse(d).startswith(hosts) for d in fn.decorator_list)


def _functions(tree: ast.Module) -> list[_Function]:
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        a = fn.args
        positional = [*a.posonlyargs, *a.args]
        params = {p.arg: i >= len(positional) - len(a.defaults) for i, p in enumerate(positional)}
        params |= {p.arg: d is not None for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)}
        for extra in (a.vararg, a.kwarg):
            if extra is not None:
                params[extra.arg] = False
        assigned = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        out.append(_Function(fn, fn.body[0].lineno, fn.end_lineno or fn.lineno, _kernel(fn), params, assigned))
    return out


def _innermost(functions: list[_Function], line: int) -> _Function | None:
    inside = [f for f in functions if f.node.lineno <= line <= f.last]
    return max(inside, key=lambda f: f.node.lineno) if inside else None


def _scope(functions: list[_Function], line: int) -> _Function:
    """The innermost function at ``line``, with the parameters and locals of every function around it
    (a nested helper reads its enclosing function's values)."""
    inside = sorted((f for f in functions if f.node.lineno <= line <= f.last), key=lambda f: f.node.lineno)
    params: dict[str, bool] = {}
    names: set[str] = set()
    for f in inside:
        names |= f.locals | set(params)
        params = {**{k: False for k in params}, **f.params}
    inner = inside[-1]
    return _Function(inner.node, inner.first, inner.last, inner.kernel, params, names | inner.locals)


def _only_raises(block: list[ast.stmt]) -> bool:
    if not block:
        return False
    last = block[-1]
    if isinstance(last, ast.Raise):
        return True
    if isinstance(last, ast.Assert) and isinstance(last.test, ast.Constant) and not last.test.value:
        return True
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
        name = ast.unparse(last.value.func)
        return name in ("sys.exit", "exit", "quit", "os._exit", "pytest.skip", "pytest.fail")
    return False


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _names_read(test: ast.AST) -> set[str]:
    """Root names the condition reads (``x`` of ``x.shape[0]``; a called function's own name is
    not a value read, its arguments are)."""
    out: set[str] = set()
    for n in ast.walk(test):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            out.add(n.id)
    for n in ast.walk(test):
        # len(x), int(x), isinstance(x, T): the callee is not an input
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                and not any(isinstance(m, ast.Name) and m.id == n.func.id for a in n.args for m in ast.walk(a))):
            out.discard(n.func.id)
    return out


def _none_test(test: ast.AST) -> bool:
    """Only ``is None`` / ``is not None`` comparisons, joined by and/or/not."""
    if isinstance(test, ast.BoolOp):
        return all(_none_test(v) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _none_test(test.operand)
    return (isinstance(test, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in test.ops)
            and any(isinstance(c, ast.Constant) and c.value is None for c in [test.left, *test.comparators]))


def _mode_test(test: ast.AST) -> bool:
    """Only comparisons with string constants or ``isinstance``/``callable`` tests, joined by and/or/not."""
    if isinstance(test, ast.BoolOp):
        return all(_mode_test(v) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _mode_test(test.operand)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
        return test.func.id in ("isinstance", "callable", "hasattr")
    if isinstance(test, ast.Compare):
        if ".dtype" in ast.unparse(test):
            return False  # a dtype named by string is still the input's dtype
        consts = [n for n in ast.walk(test) if isinstance(n, ast.Constant)]
        return bool(consts) and all(isinstance(c.value, str) for c in consts)
    return False


def _size_like(node: ast.AST) -> bool:
    """A size: ``n``, ``M * N``, ``x.numel()``, ``x.shape[0]``, ``len(x)`` (not a value like ``x.sum()``)."""
    text = ast.unparse(node)
    if any(w in text for w in ("numel", "shape", "size(", "len(")):
        return True
    return not any(isinstance(n, (ast.Call, ast.Subscript)) for n in ast.walk(node))


def _empty_test(test: ast.AST) -> bool:
    """A size compared with 0 (``n == 0``, ``x.numel() <= 0``, ``M * N == 0``)."""
    for n in ast.walk(test):
        if isinstance(n, ast.Compare) and all(isinstance(op, (ast.Eq, ast.LtE, ast.Lt, ast.NotEq, ast.Gt))
                                              for op in n.ops):
            sides = [n.left, *n.comparators]
            if any(isinstance(m, ast.BinOp) and isinstance(m.op, ast.Mod) for side in sides for m in ast.walk(side)):
                continue  # a divisibility test, not an empty size
            zero = [c for c in sides if isinstance(c, ast.Constant) and c.value == 0 and not isinstance(c.value, bool)]
            if zero and all(_size_like(v) for v in sides if v not in zero):
                return True
    return False


def _reads_rank(test: ast.AST) -> bool:
    for n in ast.walk(test):
        if isinstance(n, ast.Attribute) and n.attr == "ndim":
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _RANK_CALLS:
            return True
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and n.args
                and ast.unparse(n.args[0]).endswith((".shape", ".size()"))):
            return True
    return False


def written_state(src: SourceFile) -> set[str]:
    """The state the file's code writes (tools/engine/kept_state.py), as source text (``_CACHE``,
    ``self._memo``, ``self._last_input``, a ``global`` counter): a lookup in, or a comparison with, one
    of them reads what earlier calls left. A container counts wherever the code writes into it (a
    lookup in it is a cache, not a table of constants); an attribute or a ``global`` name only where a
    call assigns it (``__init__``'s ``self.x = ...`` is the module's construction)."""
    return {w.target for w in state_writes(src)
            if w.how in ("item", "method") or (w.when == "call" and w.how in ("assign", "update"))}


def _kept_state_lookup(test: ast.AST, fn: _Function, mutated: frozenset[str] | set[str]) -> bool:
    """A membership test or ``.get`` on a container that outlives the call (a module-level name or an
    attribute of ``self``) and that the file's code writes into: a cache or memo kept between calls."""
    def outlives_call(container: ast.AST) -> bool:
        root = _root_name(container)
        if root is None or ast.unparse(container) not in mutated:
            return False
        if root == "self":
            return isinstance(container, (ast.Attribute, ast.Subscript))
        if root in fn.params:
            return False
        declared_global = any(isinstance(g, ast.Global) and root in g.names for g in ast.walk(fn.node))
        return declared_global or root not in fn.locals

    for n in ast.walk(test):
        if isinstance(n, ast.Compare) and all(isinstance(op, (ast.In, ast.NotIn)) for op in n.ops):
            if all(outlives_call(c) for c in n.comparators):
                return True
        if isinstance(n, ast.Compare) and any(outlives_call(side) for side in (n.left, *n.comparators)):
            return True  # self._last_input is x, _calls > 300: state written by earlier calls
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get"
                and outlives_call(n.func.value)):
            return True
    return False


def _alignment_test(test: ast.AST) -> bool:
    """``x.data_ptr() % 16 != 0`` and the like: a pointer's alignment."""
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod)
               and any(isinstance(m, ast.Call) and isinstance(m.func, ast.Attribute)
                       and m.func.attr in ("data_ptr", "storage_offset") for m in ast.walk(n.left))
               for n in ast.walk(test))


def _classify(node: ast.If | ast.While | ast.For | ast.AsyncFor, side: str, fn: _Function, module: dict[str, int],
              knobs: set[str], contract_fixed: bool, missing: list[ast.stmt],
              mutated: frozenset[str] | set[str] = frozenset()) -> tuple[Kind, str, tuple[Threshold, ...]]:
    if isinstance(node, (ast.For, ast.AsyncFor)):
        if side == "exit":
            return "loop_exit", "the loop always ended by break, return or raise", ()
        test: ast.AST = node.iter
    else:
        test = node.test
    text = ast.unparse(test)
    if text.replace("'", '"') in ('__name__ == "__main__"', '"__main__" == __name__'):
        return "main_guard", "runs only when the file is executed as a script", ()
    if _device_test(test):
        return "device", "depends on the device (reported as a device-dependent path)", ()
    if _only_raises(missing):
        return "invalid_input", "this side only raises: it refuses an input rather than computing", ()
    if _kept_state_lookup(test, fn, mutated):
        return "kept_state", ("a lookup in a container kept between calls (a cache or memo): whether it hits "
                              "depends on earlier calls; integrity's repeated-call and in-place probes exercise it"), ()
    if _alignment_test(test):
        return "alignment", ("a pointer-alignment test: only a storage offset reaches it (the layouts axis runs "
                             "one); the wrapper's own fresh allocations are always aligned"), ()
    found = tuple(condition_thresholds(test, module))
    inputs = {n for n in _names_read(test) if n in fn.params or n in fn.locals or n in knobs}
    if not inputs:
        return "constant", "reads no argument or local value: only constants, module-level settings or flags", ()
    if inputs == {"self"} and not found:
        return "construction", "reads only the module's attributes, which its construction fixes", ()
    if found:
        return "threshold", "a size threshold: sizes on each side of it are probed", found
    if _reads_rank(test):
        return "rank", "the number of dimensions, which the task's inputs fix and no configuration varies", ()
    if _none_test(test):
        return "optional_argument", "tests whether an optional value was given; the task's calls fix that", ()
    if _mode_test(test):
        return "mode", "a mode or type (string constants, isinstance) that the task's calls fix", ()
    if any(isinstance(n, ast.Attribute) and n.attr in _AUTOGRAD for n in ast.walk(test)):
        return "mode", "autograd state (requires_grad, grad_fn), which the task's inputs fix", ()
    if _empty_test(test) and not found:
        return "empty_input", "compares a size or count with zero (an empty-input guard): no planned size is zero", ()
    optional = {n for n, has_default in fn.params.items() if has_default}
    if inputs and inputs <= optional and not any(isinstance(n, ast.Attribute) for n in ast.walk(test)):
        return "optional_argument", "tests an optional argument that the task's calls never vary", ()
    if contract_fixed and (".dtype" in text or any(w in text for w in _LAYOUT_WORDS)):
        return "outside_contract", "a dtype or layout test; the task's generator fixes both", ()
    return "input", "depends on the call's inputs", ()


def _statement(node: ast.AST, source_lines: list[str]) -> str:
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return "for"
    if isinstance(node, ast.While):
        return "while"
    text = source_lines[node.lineno - 1].lstrip() if node.lineno <= len(source_lines) else ""
    return "elif" if text.startswith("elif") else "if"


def unreached(file: str, source: str, ran: Iterable[tuple[int, int]], *, knobs: Iterable[str] = (),
              contract_fixed: bool = False) -> tuple[list[UntakenSide], int, int]:
    """Branch sides of ``file`` never taken, in functions that ran; with the number of branch sides
    in those functions and how many were taken."""
    try:
        src = source_file(file, source)
        parser = PythonParser(text=source, filename=file)
        parser.parse_source()
    except Exception:  # noqa: BLE001 - a file coverage.py cannot parse has no branches to report
        return [], 0, 0
    if src is None:
        return [], 0, 0
    tree = src.tree
    executed = parser.translate_arcs(set(ran))
    ran_lines = {b for a, b in executed if b > 0} | {a for a, b in executed if a > 0}
    possible: dict[int, set[int]] = {}
    for a, b in parser.arcs():
        if a > 0 and parser.exit_counts().get(a, 0) > 1:
            possible.setdefault(a, set()).add(b)
    nodes = {n.lineno: n for n in ast.walk(tree) if isinstance(n, (ast.If, ast.While, ast.For, ast.AsyncFor))}
    functions = _functions(tree)
    module = module_constants(tree)
    mutated = written_state(src)
    knob_set = set(knobs)
    lines = source.splitlines()
    out: list[UntakenSide] = []
    total = taken = 0
    for line in sorted(possible):
        node = nodes.get(line)
        fn = _innermost(functions, line)
        if node is None or fn is None or fn.kernel or line not in ran_lines:
            continue
        if any(f.kernel and f.node.lineno <= line <= f.last for f in functions):
            continue
        scope = _scope(functions, line)
        body_first = parser.first_line(node.body[0].lineno)
        for target in sorted(possible[line]):
            total += 1
            if (line, target) in executed:
                taken += 1
                continue
            into_body = target == body_first
            loop = isinstance(node, (ast.For, ast.AsyncFor))
            side = ("body" if into_body else "exit") if loop else ("true" if into_body else "false")
            missing = node.body if into_body else node.orelse
            kind, reason, found = _classify(node, side, scope, module, knob_set, contract_fixed, missing, mutated)
            cond = ast.unparse(node.iter if loop else node.test)  # type: ignore[union-attr]
            if loop:
                cond = f"{ast.unparse(node.target)} in {cond}"  # type: ignore[union-attr]
            out.append(UntakenSide(file, line, target, _statement(node, lines), cond[:160], side, kind, reason, found))
    return out, total, taken
