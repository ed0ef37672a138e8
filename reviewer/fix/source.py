"""The submission file as the fixer reads and edits it: Triton kernels and the host functions that launch
them (found with ``ast``), minimal text edits at exact positions, and the unified diff of a patch."""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass

from reviewer.core.fixes import LineChange, TextEdit


def _decorator_name(node: ast.expr) -> str:
    node = node.func if isinstance(node, ast.Call) else node
    return ast.unparse(node)


def is_kernel(fn: ast.FunctionDef) -> bool:
    # Rationale: @triton.jit (or jit imported from triton) and @triton.autotune/heuristics stacks mark a kernel
    return any(_decorator_name(d).split(".")[-1] in ("jit", "autotune", "heuristics") for d in fn.decorator_list)


def launches(fn: ast.FunctionDef) -> list[ast.Call]:
    """``kernel[grid](...)`` calls in a host function."""
    return [n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript)]


@dataclass
class Program:
    """One parsed Python file: its text, lines, kernels and launching host functions."""

    text: str
    tree: ast.Module

    @classmethod
    def parse(cls, text: str) -> Program | None:
        try:
            return cls(text, ast.parse(text))
        except (SyntaxError, ValueError):
            return None

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines(keepends=True)

    def functions(self) -> list[ast.FunctionDef]:
        return [n for n in ast.walk(self.tree) if isinstance(n, ast.FunctionDef)]

    def kernels(self) -> list[ast.FunctionDef]:
        return [f for f in self.functions() if is_kernel(f)]

    def wrappers(self) -> list[ast.FunctionDef]:
        """Host functions that launch a kernel of this file."""
        names = {k.name for k in self.kernels()}
        return [f for f in self.functions() if not is_kernel(f)
                and any(ast.unparse(c.func.value) in names for c in launches(f))]  # type: ignore[attr-defined]

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node) or ast.unparse(node)

    def indent_of(self, stmt: ast.stmt) -> str:
        line = self.lines[stmt.lineno - 1]
        return line[: len(line) - len(line.lstrip())]


def insert_at(line: int, col: int, text: str) -> TextEdit:
    return TextEdit(start_line=line, start_col=col, end_line=line, end_col=col, text=text)


def replace_node(node: ast.AST, text: str) -> TextEdit:
    return TextEdit(start_line=node.lineno, start_col=node.col_offset, end_line=node.end_lineno,  # type: ignore[attr-defined]
                    end_col=node.end_col_offset, text=text)  # type: ignore[attr-defined]


def after_node(node: ast.AST, text: str) -> TextEdit:
    return insert_at(node.end_lineno, node.end_col_offset, text)  # type: ignore[attr-defined]


def line_before(prog: Program, stmt: ast.stmt, code: str) -> TextEdit:
    """A new line ``code`` before statement ``stmt``, at its indentation."""
    return insert_at(stmt.lineno, 0, f"{prog.indent_of(stmt)}{code}\n")


def _offset(lines: list[str], line: int, col: int) -> int:
    if line > len(lines):  # just past the last line: the end of the text
        return sum(len(x) for x in lines)
    # ast columns count UTF-8 bytes; convert within the line
    raw = lines[line - 1].encode()[:col].decode(errors="ignore")
    return sum(len(x) for x in lines[: line - 1]) + len(raw)


def apply(text: str, edits: list[TextEdit]) -> str:
    """``text`` with ``edits`` applied (positions all refer to the original); overlapping edits are an error."""
    lines = text.splitlines(keepends=True)
    spans = sorted(((_offset(lines, e.start_line, e.start_col), _offset(lines, e.end_line, e.end_col), e.text)
                    for e in edits), key=lambda s: (s[0], s[1]))
    for (a0, a1, _), (b0, _b1, _t) in zip(spans, spans[1:]):
        if b0 < a1:
            raise ValueError("overlapping edits")
    for start, end, new in reversed(spans):
        text = text[:start] + new + text[end:]
    return text


def unified(old: str, new: str, file: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"a/{file}", tofile=f"b/{file}", n=3))


def line_changes(old: str, new: str) -> list[LineChange]:
    """The patch as whole-line replacements of the original (an insertion joins the line above it, or
    below it at the top of the file), as a GitHub suggestion needs."""
    a, b = old.splitlines(), new.splitlines()
    out: list[LineChange] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i1 == i2:  # pure insertion: anchor on a neighbouring original line
            if i1 > 0:
                i1, j1 = i1 - 1, j1 - 1
            else:
                i2, j2 = i2 + 1, j2 + 1
        out.append(LineChange(start_line=i1 + 1, end_line=i2, old=a[i1:i2], new=b[j1:j2]))
    return out


def lines_changed(old: str, new: str) -> int:
    return sum(1 for line in difflib.ndiff(old.splitlines(), new.splitlines()) if line[:1] in "+-")
