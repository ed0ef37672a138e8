"""Import a Python file by path, optionally rebinding module-level constants first."""

from __future__ import annotations

import ast
import importlib.util
import sys
import types
from pathlib import Path
from typing import Any


class _Rebind(ast.NodeTransformer):
    def __init__(self, overrides: dict[str, Any]) -> None:
        self.overrides = overrides
        self.seen: set[str] = set()

    def visit_Module(self, node: ast.Module) -> ast.Module:
        for stmt in node.body:
            targets: list[ast.expr] = []
            if isinstance(stmt, ast.Assign):
                targets = stmt.targets
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets = [stmt.target]
            for t in targets:
                if isinstance(t, ast.Name) and t.id in self.overrides:
                    stmt.value = ast.Constant(self.overrides[t.id])
                    self.seen.add(t.id)
                elif isinstance(t, ast.Name) and isinstance(stmt.value, ast.Tuple):
                    # a tuple's elements are knobs of their own: ``input_shape[0]`` (tools/engine/sizes.py)
                    for i, element in enumerate(stmt.value.elts):
                        key = f"{t.id}[{i}]"
                        if key in self.overrides and not isinstance(element, ast.Starred):
                            stmt.value.elts[i] = ast.Constant(self.overrides[key])
                            self.seen.add(key)
        return node


def import_file(path: Path, module_name: str, overrides: dict[str, Any] | None = None) -> types.ModuleType:
    """Execute ``path`` as module ``module_name``.

    With ``overrides``, top-level assignments ``NAME = ...`` are rewritten to the given constants
    *before* the module runs, so constants derived from them (``N = batch * dim``) follow; a key
    ``NAME[i]`` rewrites element ``i`` of a tuple assignment (``input_shape = (4096,)``).
    """
    path = Path(path)
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    if not overrides:
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        return module
    source = path.read_text()
    tree = ast.parse(source, filename=str(path))
    rebind = _Rebind(overrides)
    tree = ast.fix_missing_locations(rebind.visit(tree))
    missing = set(overrides) - rebind.seen
    if missing:
        raise KeyError(f"{path.name} has no module-level constant(s) {sorted(missing)} to rebind")
    module = types.ModuleType(module_name)
    module.__file__ = str(path)
    sys.modules[module_name] = module
    exec(compile(tree, str(path), "exec"), module.__dict__)  # noqa: S102 - reference code, in the child
    return module
