"""Host-code branches that depend on the device: paths a CPU-only review cannot see.

A submission whose Python wrapper branches on ``x.is_cuda``, ``x.device.type``,
``torch.cuda.is_available()`` or ``torch.version.hip`` (or ``torch.version.cuda``) runs one side
of that branch here and another on a GPU: a softmax wrong only on a real GPU (its ``if x.is_cuda:``
path) was accepted. Each such condition is reported with its line; without a GPU the generality
criterion stays unverified (needs a human, or a GPU run) instead of passing on the path that ran.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tools.engine.source import parse as parse_source

_ATTRS = {"is_cuda", "is_cpu", "is_mps", "is_xpu"}


@dataclass(frozen=True)
class DevicePath:
    line: int
    end_line: int
    condition: str


def _device_test(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute):
            text = ast.unparse(n)
            if n.attr in _ATTRS or text.endswith("device.type") or text in ("torch.version.hip", "torch.version.cuda"):
                return True
            if text.endswith(("cuda.is_available", "cuda.device_count")):
                return True
    return False


def device_branches(source: str) -> list[DevicePath]:
    """Conditions (``if``, ``elif``, ``while``, conditional expressions) that test the device."""
    try:
        tree = parse_source(source)
    except SyntaxError:
        return []
    out: list[DevicePath] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)) and _device_test(node.test):
            out.append(DevicePath(node.test.lineno, node.test.end_lineno or node.test.lineno,
                                  ast.unparse(node.test)[:120]))
    return sorted(set(out), key=lambda d: d.line)
