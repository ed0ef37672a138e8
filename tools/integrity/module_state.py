"""State that survives a call: what a submission's host code mutates outside the call's own locals.

A kernel whose answer depends on how many times it was called before (a module-level counter
that switches paths after 300 calls) or on an earlier call (an output cached on the input's shape
or address) passes every probe that calls it a few times. The source shows where such state is
written; the runtime tool's many-calls probe (tools/integrity/many_calls.py) shows whether it
changes any answer. What is reported here is a *concern*: legitimate state (an autotune table,
a compiled-kernel cache, a precomputed constant buffer) is written the same way.

Reported, outside kernel bodies and the ``__main__`` block, inside a function or method:

- ``global``: assigning a name the function declares ``global``;
- ``container``: writing an item of, or calling a mutating method on, a module-level dict, list,
  set (``CACHE[key] = out``, ``SEEN.append(...)``);
- ``module_attribute``: assigning an attribute of a module-level object (``STATE.calls += 1``);
- ``class_attribute``: assigning an attribute of a class of the file, ``type(self)`` or
  ``self.__class__``;
- ``instance``: a method other than ``__init__`` updating ``self.<attr>`` in place (``+=``, item
  writes, mutating methods): a model is built once and called many times;
- ``lru_cache``: ``functools.lru_cache``/``functools.cache`` on a function (a tensor argument
  hashes by identity, so the cache replays an earlier output for the same tensor object).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tools.engine.source import SourceFile, dotted, in_kernel, in_main_block

_MUTATORS = {"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear", "add", "remove",
             "discard", "appendleft", "extendleft", "__setitem__"}
_CONTAINERS = {"dict", "list", "set", "collections.OrderedDict", "collections.defaultdict", "collections.deque",
               "collections.Counter", "OrderedDict", "defaultdict", "deque", "Counter",
               "types.SimpleNamespace", "SimpleNamespace"}
_MEMO = {"functools.lru_cache", "functools.cache", "lru_cache", "cache"}


@dataclass(frozen=True)
class StateWrite:
    kind: str
    name: str
    """The state written (``_CALLS``, ``ModelNew.cache``, ``self.count``)."""
    function: str
    """The enclosing function's qualified name."""
    node: ast.AST

    def plain(self) -> str:
        what = {"global": f"assigns the module-level name `{self.name}` (declared global)",
                "container": f"writes into the module-level container `{self.name}`",
                "module_attribute": f"assigns an attribute of the module-level object `{self.name}`",
                "class_attribute": f"assigns the class attribute `{self.name}`",
                "instance": f"updates `{self.name}` in place on every call",
                "lru_cache": f"memoizes `{self.name}` with functools (results cached on its arguments)"}[self.kind]
        return f"{self.function}() {what}: state that survives the call"


def _module_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Module-level names bound by assignment: all of them, and those bound to a mutable container."""
    names: set[str] = set()
    containers: set[str] = set()
    for stmt in tree.body:
        targets: list[ast.AST] = []
        value: ast.AST | None = None
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    names.add(n.id)
                    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or (
                            isinstance(value, ast.Call) and ast.unparse(value.func) in _CONTAINERS):
                        containers.add(n.id)
    return names, containers


def _root_name(node: ast.AST) -> ast.Name | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def _class_target(src: SourceFile, node: ast.AST) -> str | None:
    """``Cls.attr``, ``type(self).attr``, ``self.__class__.attr`` -> the written name."""
    if not isinstance(node, ast.Attribute):
        return None
    base = node.value
    if isinstance(base, ast.Name) and base.id in src.classes:
        return f"{base.id}.{node.attr}"
    text = ast.unparse(base)
    if text in ("type(self)", "self.__class__", "cls"):
        return f"{text}.{node.attr}"
    return None


def _written(node: ast.AST) -> list[tuple[ast.AST, bool]]:
    """(target, in place) for every store a statement or call makes: assignments, ``del``,
    mutating method calls (in place = the object is updated, not rebound)."""
    if isinstance(node, ast.Assign):
        # Rationale: ``self.n = self.n + 1`` updates in place as much as ``self.n += 1`` does.
        value = ast.unparse(node.value)
        return [(t, isinstance(t, ast.Subscript) or ast.unparse(t) in value) for t in node.targets]
    if isinstance(node, ast.AugAssign):
        return [(node.target, True)]
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return [(node.target, False)]
    if isinstance(node, ast.Delete):
        return [(t, True) for t in node.targets if isinstance(t, ast.Subscript)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
        return [(_MethodWrite(value=node.func.value, slice=ast.Constant(0)), True)]
    return []


class _MethodWrite(ast.Subscript):
    """A mutating method call (``CACHE.update(...)``), seen as an item write of its object; counted
    only on known containers and on ``self``'s attributes (``W.add(1)`` on a tensor is no write)."""


def state_writes(src: SourceFile) -> list[StateWrite]:
    """Every write to state that outlives a call, in the file's host code (see the module docstring)."""
    module_names, containers = _module_names(src.tree)
    imported = set(src.aliases)
    out: list[StateWrite] = []
    seen: set[tuple[str, str, int]] = set()

    def add(kind: str, name: str, function: str, node: ast.AST) -> None:
        key = (kind, name, getattr(node, "lineno", 0))
        if key not in seen:
            seen.add(key)
            out.append(StateWrite(kind, name, function, node))

    for qualname, fn in src.functions.items():
        if fn in src.kernels or in_kernel(src, fn):
            continue
        for deco in fn.decorator_list:
            target = dotted(src, deco.func if isinstance(deco, ast.Call) else deco) or ast.unparse(deco)
            if target in _MEMO or target.endswith((".lru_cache", ".cache")) and target.startswith("functools"):
                add("lru_cache", qualname, qualname, deco)
        declared = {n for node in ast.walk(fn) if isinstance(node, ast.Global) for n in node.names}
        method = "." in qualname
        for node in ast.walk(fn):
            if in_main_block(src, node):
                continue
            if isinstance(node, ast.Call) and not isinstance(src.parents.get(node), ast.Expr):
                continue  # a method whose result is used (``y = self.b.add(x)``) computes, it does not store
            for target, in_place in _written(node):
                if isinstance(target, ast.Name):
                    if target.id in declared:
                        add("global", target.id, qualname, node)
                    continue
                cls_name = _class_target(src, target if isinstance(target, ast.Attribute) else
                                         getattr(target, "value", target))
                if cls_name is not None:
                    add("class_attribute", cls_name, qualname, node)
                    continue
                root = _root_name(target)
                if root is None:
                    continue
                local = root.id not in declared and any(
                    isinstance(n, ast.Name) and n.id == root.id and isinstance(n.ctx, ast.Store) for n in ast.walk(fn))
                local = local or root.id in {a.arg for a in fn.args.args + fn.args.kwonlyargs} - {"self"}
                if root.id == "self" and method and in_place and not qualname.endswith(".__init__"):
                    add("instance", ast.unparse(target.value if isinstance(target, ast.Subscript) else target)
                        .split("[")[0], qualname, node)
                elif isinstance(target, _MethodWrite) and root.id not in containers:
                    continue
                elif root.id in module_names and root.id not in imported and not local:
                    kind = "container" if root.id in containers and in_place else "module_attribute"
                    if kind == "module_attribute" and not isinstance(target, ast.Attribute):
                        kind = "container"
                    add(kind, root.id, qualname, node)
    out.sort(key=lambda w: getattr(w.node, "lineno", 0))
    return out
