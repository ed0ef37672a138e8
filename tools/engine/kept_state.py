"""State a submission's host code keeps between calls: every write to it, with its kind and when it runs.

State outlives a call when it lives on the module (a name declared ``global``, a module-level container
or object), on a class, or on the instance a model is built as once and then called through. An answer
that depends on how often, or with what, the kernel was called before is written through such state;
so are a legitimate autotune table, a compiled-kernel cache and a memo. Two readers weigh the writes:
integrity's static scan reports those the call path makes as a concern (tools/integrity/module_state.py),
and generality's host branches call a condition that reads written state ``kept_state``
(tools/generality/branches.py).

Kinds (``StateWrite.kind``):

- ``global``: assigning a name the function declares ``global``;
- ``container``: writing an item of, or calling a mutating method on, a module-level dict, list, set
  (``CACHE[key] = out``, ``SEEN.append(...)``; bound at import or lazily under ``global``);
- ``module_attribute``: assigning an attribute of a module-level object (``STATE.calls += 1``);
- ``class_attribute``: assigning an attribute of a class of the file, ``type(self)``, ``self.__class__``
  or ``cls``;
- ``instance``: updating ``self.<attr>`` in place (``+=``, ``self.n = self.n + 1``, item writes,
  mutating methods);
- ``instance_assign``: assigning ``self.<attr>`` outright, also in a tuple
  (``self._last_input, self._last_output = x, out``);
- ``lru_cache``: ``functools.lru_cache``/``functools.cache`` on a function (written on every call).

``when``: ``import`` (module-level code), ``construction`` (in ``__init__``), ``call`` (any other function).

Not writes: a function's locals and parameters; a mutating-looking method whose result is used when
containers return nothing from it (``y = self.b.add(x)`` is a tensor op; ``v = CACHE.setdefault(k, f(x))``
and ``CACHE.pop(k)`` do write); a method called on a module-level object not bound to a container
(``W.add(1)`` on a tensor); kernel bodies (device code) and the ``if __name__ == "__main__":`` block.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Literal

from tools.engine.source import SourceFile, dotted, in_kernel, in_main_block

Kind = Literal["global", "container", "module_attribute", "class_attribute", "instance", "instance_assign",
               "lru_cache"]
When = Literal["import", "construction", "call"]
How = Literal["assign", "update", "item", "method", "memo"]

_MUTATORS = {"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear", "add", "remove",
             "discard", "appendleft", "extendleft", "__setitem__"}
# Rationale: these return what they take out of (or put into) the container, so a used result is still a write;
# the others return None on a container, so a used result means the object is something else (a tensor).
_RETURNING = {"setdefault", "pop", "popitem"}
_CONTAINERS = {"dict", "list", "set", "collections.OrderedDict", "collections.defaultdict", "collections.deque",
               "collections.Counter", "OrderedDict", "defaultdict", "deque", "Counter",
               "types.SimpleNamespace", "SimpleNamespace", "weakref.WeakKeyDictionary", "weakref.WeakValueDictionary",
               "weakref.WeakSet", "WeakKeyDictionary", "WeakValueDictionary", "WeakSet"}
_MEMO = {"functools.lru_cache", "functools.cache", "lru_cache", "cache"}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class StateWrite:
    """One write to state that outlives a call."""
    kind: Kind
    name: str
    """The state written: ``_CALLS``, ``CACHE``, ``STATE`` (for ``STATE.n``), ``ModelNew.hits``, ``self.count``."""
    target: str
    """What the write changes, as source text: the object an item write or a mutating method changes
    (``self._memo``, ``CACHE``), the attribute or name assigned (``self._last_input``, ``STATE.n``, ``_calls``)."""
    function: str | None
    """The enclosing function's qualified name (``ModelNew.forward``; a nested function counts as the
    function or method it is defined in); None at module level."""
    when: When
    how: How
    """``assign`` (``=``), ``update`` (``+=``, ``x = x + 1``), ``item`` (``c[k] = v``, ``del c[k]``),
    ``method`` (``c.append(v)``), ``memo`` (a functools cache)."""
    used: bool
    """A method call whose result the code uses (``v = CACHE.setdefault(k, f(x))``)."""
    node: ast.AST

    @property
    def line(self) -> int:
        return getattr(self.node, "lineno", 0)

    def plain(self) -> str:
        what = {"global": f"assigns the module-level name `{self.name}` (declared global)",
                "container": f"writes into the module-level container `{self.name}`",
                "module_attribute": f"assigns an attribute of the module-level object `{self.name}`",
                "class_attribute": f"assigns the class attribute `{self.name}`",
                "instance": f"updates `{self.name}` in place on every call",
                "instance_assign": f"assigns `{self.name}` on every call",
                "lru_cache": f"memoizes `{self.name}` with functools (results cached on its arguments)"}[self.kind]
        where = f"{self.function}()" if self.function else "module-level code"
        return f"{where} {what}: state that survives the call"


def state_writes(src: SourceFile) -> list[StateWrite]:
    """Every write to state that outlives a call in ``src``'s host code, by line (see the module docstring)."""
    return _Reader(src).read()


class _Reader:
    def __init__(self, src: SourceFile) -> None:
        self.src = src
        self.module_names, self.containers = _module_names(src.tree)
        self.imported = set(src.aliases)
        self.out: list[StateWrite] = []
        self._seen: set[tuple[str, str, int]] = set()
        self._scopes: dict[ast.AST, tuple[set[str], set[str]]] = {}

    def read(self) -> list[StateWrite]:
        for node in ast.walk(self.src.tree):
            if not isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete, ast.Call, *_FUNCTIONS)):
                continue
            if in_kernel(self.src, node) or in_main_block(self.src, node):
                continue
            chain = self._chain(node)
            if isinstance(node, _FUNCTIONS):
                self._memo(node, [node, *chain])
            else:
                for target, how, used in _written(node, self.src):
                    self._write(node, target, how, used, chain)
        self.out.sort(key=lambda w: w.line)
        return self.out

    def _chain(self, node: ast.AST) -> list[ast.AST]:
        """The functions and classes around ``node``, innermost first."""
        out = []
        cur = self.src.parents.get(node)
        while cur is not None:
            if isinstance(cur, (*_FUNCTIONS, ast.ClassDef)):
                out.append(cur)
            cur = self.src.parents.get(cur)
        return out

    def _add(self, w: StateWrite) -> None:
        key = (w.kind, w.target, w.line)
        if key not in self._seen:
            self._seen.add(key)
            self.out.append(w)

    def _memo(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, chain: list[ast.AST]) -> None:
        for deco in fn.decorator_list:
            name = dotted(self.src, deco.func if isinstance(deco, ast.Call) else deco) or ast.unparse(deco)
            if name in _MEMO or name.endswith((".lru_cache", ".cache")) and name.startswith("functools"):
                qualname = _qualname(chain) or fn.name
                self._add(StateWrite("lru_cache", qualname, qualname, qualname, "call", "memo", False, deco))

    def _scope(self, outermost: ast.AST) -> tuple[set[str], set[str]]:
        """(names declared ``global``, names bound locally) in a top function and everything in it."""
        if outermost not in self._scopes:
            declared = {n for g in ast.walk(outermost) if isinstance(g, ast.Global) for n in g.names}
            bound = {n.id for n in ast.walk(outermost) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            self._scopes[outermost] = declared, bound - declared
        return self._scopes[outermost]

    def _write(self, node: ast.AST, target: ast.AST, how: How, used: bool, chain: list[ast.AST]) -> None:
        functions = [c for c in chain if isinstance(c, _FUNCTIONS)]
        if functions:
            declared, local = self._scope(functions[-1])
            local = local | {p for f in functions for p in _params(f)} - {"self"}
            when: When = "construction" if functions[0].name == "__init__" else "call"
        else:
            declared, local, when = set(), set(), "import"
        function = _qualname(chain)

        def add(kind: Kind, name: str, written: ast.AST) -> None:
            self._add(StateWrite(kind, name, ast.unparse(written), function, when, how, used, node))

        obj = target.value if how in ("item", "method") else target  # type: ignore[attr-defined]
        if isinstance(target, ast.Name):
            if target.id in declared:
                add("global", target.id, target)
            return
        owner = _class_target(self.src, obj)
        if owner is not None:
            add("class_attribute", owner, obj)
            return
        root = _root_name(obj)
        if root is None:
            return
        if root == "self":
            add("instance_assign" if how == "assign" else "instance", ast.unparse(obj).split("[")[0], obj)
        elif root in local or how == "method" and root not in self.containers:
            return  # a local; a method on an object not bound to a container (``W.add(1)`` on a tensor)
        elif root in self.module_names and root not in self.imported:
            attribute = (how in ("assign", "update") and isinstance(target, ast.Attribute)
                         and not (root in self.containers and how == "update"))
            add("module_attribute" if attribute else "container", root, obj)


def _written(node: ast.AST, src: SourceFile) -> list[tuple[ast.AST, How, bool]]:
    """(target, how, used) for every store a statement or call makes. For ``item`` and ``method`` the
    target's ``.value`` is the object changed."""
    if isinstance(node, ast.Assign):
        # Rationale: ``self.n = self.n + 1`` updates in place as much as ``self.n += 1`` does.
        value = ast.unparse(node.value)
        return [(t, "item" if isinstance(t, ast.Subscript) else "update" if ast.unparse(t) in value else "assign",
                 False) for t in _flat(node.targets)]
    if isinstance(node, ast.AugAssign):
        return [(node.target, "item" if isinstance(node.target, ast.Subscript) else "update", False)]
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return [(node.target, "item" if isinstance(node.target, ast.Subscript) else "assign", False)]
    if isinstance(node, ast.Delete):
        return [(t, "item", False) for t in node.targets if isinstance(t, ast.Subscript)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
        used = not isinstance(src.parents.get(node), ast.Expr)
        if used and node.func.attr not in _RETURNING:
            return []  # ``y = self.b.add(x)`` computes, it does not store
        return [(node.func, "method", used)]
    return []


def _flat(targets: list[ast.expr]) -> list[ast.expr]:
    """Assignment targets with tuples and lists unpacked (``a, (b, *c) = ...`` -> a, b, c)."""
    out: list[ast.expr] = []
    for t in targets:
        if isinstance(t, (ast.Tuple, ast.List)):
            out += _flat(t.elts)
        elif isinstance(t, ast.Starred):
            out += _flat([t.value])
        else:
            out.append(t)
    return out


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = fn.args
    return {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if p is not None}


def _qualname(chain: list[ast.AST]) -> str | None:
    """``ModelNew.forward`` for a method (and whatever is nested in it), ``helper`` for a module function."""
    names = [c.name for c in reversed(chain)]  # type: ignore[attr-defined]
    if not names:
        return None
    return ".".join(names[:2]) if isinstance(chain[-1], ast.ClassDef) and len(names) >= 2 else names[0]


def _module_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Module-level names bound by assignment: all of them, and those bound to a mutable container,
    at module level or lazily by a function that declares them ``global`` (``_CACHE = None`` at import,
    ``_CACHE = {}`` on the first call)."""
    names: set[str] = set()
    containers: set[str] = set()
    for stmt in tree.body:
        for n, value in _bindings(stmt):
            names.add(n)
            if _container(value):
                containers.add(n)
    for fn in ast.walk(tree):
        if isinstance(fn, _FUNCTIONS):
            declared = {n for g in ast.walk(fn) if isinstance(g, ast.Global) for n in g.names}
            containers |= {n for stmt in ast.walk(fn) for n, value in _bindings(stmt)
                           if n in declared and n in names and _container(value)}
    return names, containers


def _bindings(stmt: ast.AST) -> list[tuple[str, ast.AST]]:
    """(name, value) for each name an assignment statement binds (every name of a tuple target gets the
    whole value)."""
    if isinstance(stmt, ast.Assign):
        targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        targets, value = [stmt.target], stmt.value
    else:
        return []
    return [(n.id, value) for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _container(value: ast.AST) -> bool:
    return isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or (
        isinstance(value, ast.Call) and ast.unparse(value.func) in _CONTAINERS)


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _class_target(src: SourceFile, node: ast.AST) -> str | None:
    """``Cls.attr``, ``type(self).attr``, ``self.__class__.attr``, ``cls.attr`` -> the written name."""
    if not isinstance(node, ast.Attribute):
        return None
    base = node.value
    if isinstance(base, ast.Name) and base.id in src.classes:
        return f"{base.id}.{node.attr}"
    text = ast.unparse(base)
    if text in ("type(self)", "self.__class__", "cls"):
        return f"{text}.{node.attr}"
    return None
