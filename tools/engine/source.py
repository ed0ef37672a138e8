"""One parsed view of a submission's source, shared by every reader of it.

``parse(text)`` is ``ast.parse`` done once per distinct text in this process: ingestion, the tools
and the engine's own readers (sizes, outcomes, CUDA sources) all get the same tree. Trees are shared,
so a reader must not change them. ``SourceView`` (``ctx.source``) holds a submission's texts, lines
and trees, each file read and parsed once per review. ``source_file(name, text)`` is one Python file
read for its names (``SourceFile``: imports resolved, functions by qualified name, classes, kernel
bodies, each node's parent), built on the same shared tree.

Readers that run inside the sandbox child (tools/engine/harness) parse there, in their own process.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field

from reviewer.core.submission import Submission

_CACHED_TEXTS = 64


@functools.lru_cache(maxsize=_CACHED_TEXTS)
def _parse(text: str) -> ast.Module:
    return ast.parse(text)


def parse(text: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(text)``, parsed once per distinct text; raises ``SyntaxError`` (naming
    ``filename``) like ``ast.parse`` does. The tree is shared: do not modify it."""
    try:
        return _parse(text)
    except SyntaxError:
        return ast.parse(text, filename=filename)  # raises again, with the file's name


class SourceView:
    """The texts and syntax trees of one submission's files, each read and parsed once."""

    def __init__(self, submission: Submission) -> None:
        self.submission = submission
        self._texts: dict[str, str] = {}

    def file(self, rel: str | None = None) -> str:
        """The text of ``rel`` (default: the submission file), as ``Submission.source`` reads it."""
        rel = rel or self.submission.submission_file
        if rel not in self._texts:
            self._texts[rel] = self.submission.source(rel)
        return self._texts[rel]

    def tree_of(self, rel: str | None = None) -> ast.Module | None:
        """The syntax tree of a Python file ``rel``; None if it does not parse."""
        try:
            return parse(self.file(rel))
        except (SyntaxError, ValueError):
            return None

    @property
    def text(self) -> str:
        """The submission file's text."""
        return self.file()

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @property
    def tree(self) -> ast.Module | None:
        """The submission file's syntax tree; None if it does not parse."""
        return self.tree_of()

    @property
    def reference(self) -> str:
        """The reference file's text."""
        return self.file(self.submission.reference_file)

    def python_files(self) -> list[str]:
        """The submission's Python files (the submission file first)."""
        sub = self.submission
        names = [sub.submission_file] if sub.submission_file.endswith(".py") else []
        return names + [f for f in sub.source_files if f.endswith(".py") and f not in names]

    def trees(self) -> dict[str, ast.Module]:
        """Every Python file of the submission that parses, by name."""
        out = {}
        for name in self.python_files():
            tree = self.tree_of(name)
            if tree is not None:
                out[name] = tree
        return out


@dataclass
class SourceFile:
    """One Python file read for its names, on the shared tree of ``parse`` (do not modify either)."""
    name: str
    text: str
    tree: ast.Module
    aliases: dict[str, str] = field(default_factory=dict)
    """imported name -> the dotted name it stands for (``F`` -> ``torch.nn.functional``)"""
    parents: dict[ast.AST, ast.AST] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    """module functions and class methods by qualified name (``ModelNew.forward``)"""
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    kernels: set[ast.AST] = field(default_factory=set)
    """functions decorated as Triton or NKI kernels (device code)"""

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node) or ast.unparse(node)

    def lines(self) -> list[str]:
        return self.text.splitlines()


@functools.lru_cache(maxsize=_CACHED_TEXTS)
def source_file(name: str, text: str) -> SourceFile | None:
    """``text`` read as the Python file ``name``; None if it does not parse. Shared per (name, text):
    do not modify it."""
    try:
        tree = parse(text, name)
    except SyntaxError:
        return None
    src = SourceFile(name=name, text=text, tree=tree)
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            src.parents[child] = node
    _collect_imports(src)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            src.functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            src.classes[node.name] = node
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    src.functions[f"{node.name}.{item.name}"] = item
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                _is_kernel_decorator(src, d) for d in node.decorator_list):
            src.kernels.add(node)
    return src


def _collect_imports(src: SourceFile) -> None:
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    src.aliases[a.asname] = a.name
                else:
                    src.aliases.setdefault(a.name.split(".")[0], a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                src.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.ImportFrom) and node.level:
            for a in node.names:
                src.aliases[a.asname or a.name] = f"{node.module or ''}.{a.name}".lstrip(".")


def dotted(src: SourceFile, expr: ast.AST) -> str | None:
    """``torch.nn.functional.softmax`` for ``F.softmax``; ``.softmax`` for ``x.softmax``."""
    parts: list[str] = []
    node = expr
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        root = src.aliases.get(node.id)
        if root is not None:
            return ".".join([root, *reversed(parts)])
        if not parts:
            return node.id
        if node.id == "self":
            return "self." + ".".join(reversed(parts))
        return "." + parts[0]
    if parts:
        return "." + parts[0]
    return None


def _is_kernel_decorator(src: SourceFile, deco: ast.AST) -> bool:
    target = deco.func if isinstance(deco, ast.Call) else deco
    name = dotted(src, target) or ""
    # Rationale: only Triton/NKI kernel bodies are device code; torch.jit.script bodies are torch.
    return name.startswith(("triton.", "neuronxcc.", "nki.")) and name.rsplit(".", 1)[-1] in {
        "jit", "autotune", "heuristics", "kernel"}


def in_kernel(src: SourceFile, node: ast.AST) -> bool:
    cur: ast.AST | None = node
    while cur is not None:
        if cur in src.kernels:
            return True
        cur = src.parents.get(cur)
    return False


def in_main_block(src: SourceFile, node: ast.AST) -> bool:
    cur = src.parents.get(node)
    while cur is not None:
        if isinstance(cur, ast.If) and "__name__" in ast.unparse(cur.test) and "__main__" in ast.unparse(cur.test):
            return True
        cur = src.parents.get(cur)
    return False
