"""Reading Python sources without running them (the parent never executes submission code)."""

from __future__ import annotations

import ast
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.engine.source import parse as parse_source


@dataclass
class PyFacts:
    path: Path
    tree: ast.Module | None
    syntax_error: dict[str, Any] | None = None
    functions: set[str] = field(default_factory=set)
    classes: set[str] = field(default_factory=set)
    constants: dict[str, Any] = field(default_factory=dict)


def read_facts(path: Path) -> PyFacts:
    text = path.read_text(errors="replace")
    try:
        tree = parse_source(text, path.name)
    except SyntaxError as exc:
        tb = "".join(traceback.format_exception_only(type(exc), exc))
        return PyFacts(path, None, {"file": path.name, "line": exc.lineno, "offset": exc.offset,
                                    "message": exc.msg, "traceback": tb,
                                    "text": (exc.text or "").rstrip("\n")})
    facts = PyFacts(path, tree)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            facts.functions.add(node.name)
        elif isinstance(node, ast.ClassDef):
            facts.classes.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant) \
                        and isinstance(node.value.value, (int, float)) and not isinstance(node.value.value, bool):
                    facts.constants[target.id] = node.value.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, (int, float)):
            facts.constants[node.target.id] = node.value.value
    # names bound by simple assignment (``check_implementation = make_match_reference(...)``)
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    facts.functions.add(target.id)
    return facts


def call_keywords(tree: ast.Module, func_name: str) -> dict[str, Any]:
    """Literal keyword arguments of the first call to ``func_name`` (e.g. tolerances)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name == func_name:
                out = {}
                for kw in node.keywords:
                    if kw.arg and isinstance(kw.value, ast.Constant):
                        out[kw.arg] = kw.value.value
                return out
    return {}
