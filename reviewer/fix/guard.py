"""What a model's patch must be before it is rerun: its answer is hostile text like any submission, so the line
ranges are checked against the file, the patch is kept small, and a patch that adds a branch keyed on a value
of the failing cases (``if n == 4097:``) is refused, since it would pass the rerun without fixing the kernel.

Nothing here runs the patch: it only turns the model's line replacements into the ``TextEdit`` form the
rule-based candidates use (reviewer/fix/candidates.py), or says why not. The sandbox rerun (verify.py)
judges what passes this gate.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from typing import Any

from reviewer.core.fixes import TextEdit
from reviewer.core.models import Evidence
from reviewer.fix.source import apply, lines_changed

MAX_LINES_CHANGED = 12
"""Removed plus added lines a model's patch may have (the rule-based patches of docs/fixes.md change 1-4)."""

# Rationale: 0 and 1 are what general guards compare with (empty, one element), whatever the failing case was
_GENERAL = {0, 1, -1}
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def line_edits(edits: Iterable[tuple[int, int, str]], text: str) -> tuple[tuple[TextEdit, ...], str]:
    """Whole-line replacements (``start_line``..``end_line`` inclusive, 1-based; ``replacement`` without its
    final newline) as text edits of ``text``, or () and why they are refused."""
    lines = text.splitlines(keepends=True)
    n = len(lines)
    spans = sorted(edits)
    if not spans:
        return (), "the model proposed no patch"
    for start, end, new in spans:
        if not 1 <= start <= end <= n:
            return (), f"an edit names lines {start}-{end}, not lines of the file (1-{n})"
        if "\x00" in new:
            return (), "an edit's replacement holds a NUL character"
    for (_s0, e0, _t0), (s1, _e1, _t1) in zip(spans, spans[1:]):
        if s1 <= e0:
            return (), f"edits overlap at line {s1}"
    out = []
    for start, end, new in spans:
        body = new if not new or new.endswith("\n") else new + "\n"
        if end == n and not lines[-1].endswith("\n"):
            body = body.removesuffix("\n")  # the file's last line had no newline: neither has its replacement
        out.append(TextEdit(start_line=start, start_col=0, end_line=end + 1, end_col=0, text=body))
    return tuple(out), ""


def _numbers(value: Any) -> Iterator[float]:
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _numbers(v)


def case_values(items: list[Evidence]) -> set[float]:
    """The numbers of the failing cases: every number in their inputs (sizes, shapes, scales) and in their
    summaries ("fails at n=4097")."""
    out = {v for e in items for v in _numbers(e.inputs)}
    out |= {float(m) for e in items for m in _NUMBER.findall(e.summary)}
    return out - _GENERAL


def _conditions(tree: ast.AST) -> list[ast.expr]:
    """Every branch condition: ``if``/``while``/``x if c else y`` tests and ``tl.where``'s first argument."""
    out: list[ast.expr] = []
    for n in ast.walk(tree):
        if isinstance(n, (ast.If, ast.IfExp, ast.While)):
            out.append(n.test)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "where" and n.args:
            out.append(n.args[0])
    return out


def keyed_branch(original: str, patched: str, values: set[float]) -> str:
    """Why the patch adds a branch only the failing cases take (a new condition comparing with one of their
    values), or "" when it does not (or the files are not Python)."""
    try:
        before, after = ast.parse(original), ast.parse(patched)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    old = {ast.unparse(c) for c in _conditions(before)}
    # Rationale: a number the kernel already holds (its block size) is the kernel's, not the failing cases'
    values = values - {n.value for n in ast.walk(before) if isinstance(n, ast.Constant)
                       and isinstance(n.value, (int, float)) and not isinstance(n.value, bool)}
    for cond in _conditions(after):
        text = ast.unparse(cond)
        if text in old:
            continue
        hits = sorted({n.value for n in ast.walk(cond) if isinstance(n, ast.Constant)
                       and isinstance(n.value, (int, float)) and not isinstance(n.value, bool) and n.value in values})
        if hits:
            return (f"it adds a branch on {', '.join(f'{h:g}' for h in hits)}, a value of the failing cases "
                    f"({text[:120]}): a patch must fix the kernel, not the cases it was tested on")
    return ""


def check_patch(text: str, edits: tuple[TextEdit, ...], file: str, failing: list[Evidence]) -> tuple[str, str]:
    """The patched text, or "" and why the patch is refused before any rerun."""
    try:
        patched = apply(text, list(edits))
    except ValueError as exc:
        return "", f"the edits cannot be applied ({exc})"
    if patched == text:
        return "", "the patch changes nothing"
    changed = lines_changed(text, patched)
    if changed > MAX_LINES_CHANGED:
        return "", f"the patch changes {changed} lines, more than {MAX_LINES_CHANGED}"
    if file.endswith(".py"):
        try:
            ast.parse(patched)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            return "", f"the patched file is not valid Python ({type(exc).__name__}: {exc})"[:300]
        why = keyed_branch(text, patched, case_values(failing))
        if why:
            return "", why
    return patched, ""
