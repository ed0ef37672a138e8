"""One parsed view of a submission's source, shared by every reader of it.

``parse(text)`` is ``ast.parse`` done once per distinct text in this process: ingestion, the tools
and the engine's own readers (sizes, outcomes, CUDA sources) all get the same tree. Trees are shared,
so a reader must not change them. ``SourceView`` (``ctx.source``) holds a submission's texts, lines
and trees, each file read and parsed once per review.

Readers that run inside the sandbox child (tools/engine/harness) parse there, in their own process.
"""

from __future__ import annotations

import ast
import functools

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
