"""Which submission directories a change touches, read from git objects (nothing is executed).

A directory is a candidate when it holds a ``kreview.toml`` manifest or a Python file defining a
KernelBench ``ModelNew`` or a GPU MODE ``custom_kernel``; whether it really reads as a submission is
decided later by ``reviewer.ingest.load_submission`` on the materialised tree. A candidate is touched
when a changed file lies inside it, is the target of one of its symlinks, or is a module one of its
Python files imports (resolved against the directory, the importing file's folder and the root).
"""

from __future__ import annotations

import ast
import posixpath
import re
import stat
from collections import defaultdict
from collections.abc import Callable

import git

from reviewer.pr.gitdiff import tree_files
from reviewer.pr.models import FileChange, ReviewTarget

# Rationale: these are the entry points the three ingest formats look for (reviewer/ingest).
_MARKERS = (re.compile(r"^\s*class\s+ModelNew\b", re.MULTILINE), re.compile(r"^\s*def\s+custom_kernel\b", re.MULTILINE))
_MANIFEST = "kreview.toml"
# Rationale: a kernel source bigger than this is generated data, not something to parse for imports.
_MAX_PARSE = 2 * 1024 * 1024


def _parent(path: str) -> str:
    return posixpath.dirname(path)


def _inside(path: str, folder: str) -> bool:
    return folder == "" or path.startswith(folder + "/")


class _Tree:
    """The blobs of one commit, grouped for the questions below (texts read lazily)."""

    def __init__(self, commit: git.Commit) -> None:
        self.blobs = {b.path: b for b in tree_files(commit)}
        self._text: dict[str, str] = {}

    def text(self, path: str) -> str:
        if path not in self._text:
            blob = self.blobs[path]
            self._text[path] = "" if blob.size > _MAX_PARSE else blob.data_stream.read().decode("utf-8", "replace")
        return self._text[path]

    def candidates(self, selects: Callable[[str], bool]) -> set[str]:
        found = set()
        for path in self.blobs:
            if not selects(path):
                continue
            name = posixpath.basename(path)
            if name == _MANIFEST or (name.endswith(".py") and any(m.search(self.text(path)) for m in _MARKERS)):
                found.add(_parent(path))
        return found

    def links(self, folder: str) -> dict[str, str]:
        """Symlinks inside ``folder`` → the repository path they point to."""
        out = {}
        for path, blob in self.blobs.items():
            if _inside(path, folder) and stat.S_ISLNK(blob.mode):
                to = posixpath.normpath(posixpath.join(_parent(path), self.text(path).strip()))
                if not to.startswith("../") and to != "..":
                    out[path] = to
        return out

    def imports(self, folder: str) -> dict[str, set[str]]:
        """Python files inside ``folder`` → repository paths of the modules they import (if present)."""
        out: dict[str, set[str]] = defaultdict(set)
        for path in self.blobs:
            if not (_inside(path, folder) and path.endswith(".py")):
                continue
            try:
                tree = ast.parse(self.text(path))
            except (SyntaxError, ValueError):
                continue
            here = _parent(path)
            for mod_dir, dotted in _imported(tree, here):
                for root in ({mod_dir} if mod_dir is not None else {folder, here, ""}):
                    for cand in _module_files(root, dotted):
                        if cand in self.blobs and cand != path:
                            out[path].add(cand)
        return out


def _imported(tree: ast.Module, here: str) -> list[tuple[str | None, str]]:
    """(anchor folder or None for absolute, dotted name) of every import, submodule names included."""
    found: list[tuple[str | None, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(None, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            anchor = None
            if node.level:
                anchor = here
                for _ in range(node.level - 1):
                    anchor = _parent(anchor)
            base = node.module or ""
            if base:
                found.append((anchor, base))
            found += [(anchor, f"{base}.{a.name}" if base else a.name) for a in node.names if a.name != "*"]
    return found


def _module_files(root: str, dotted: str) -> list[str]:
    rel = dotted.replace(".", "/")
    return [posixpath.normpath(posixpath.join(root, rel + ".py")),
            posixpath.normpath(posixpath.join(root, rel, "__init__.py"))]


def _innermost(path: str, folders: set[str]) -> str | None:
    hits = [f for f in folders if _inside(path, f)]
    return max(hits, key=len) if hits else None


def _reasons(tree: _Tree, folder: str, changed: dict[str, FileChange], folders: set[str]) -> list[str]:
    reasons = []
    for path in sorted(changed):
        if _innermost(path, folders) == folder:
            reasons.append(f"{path} {changed[path].status}")
    for link, to in sorted(tree.links(folder).items()):
        if to in changed or any(_inside(p, to) for p in changed):
            reasons.append(f"{link} links to {to}, which changed")
    for src, mods in sorted(tree.imports(folder).items()):
        for mod in sorted(mods):
            if mod in changed and not _inside(mod, folder):
                reasons.append(f"{src} imports {mod}, which changed")
    return reasons


def find_targets(base: git.Commit, head: git.Commit, files: list[FileChange],
                 selects: Callable[[str], bool] = lambda p: True) -> list[ReviewTarget]:
    """Submission directories (in ``head`` or ``base``) that the change from ``base`` to ``head`` touches."""
    changed: dict[str, FileChange] = {}
    for f in files:
        changed[f.path] = f
        if f.old_path:
            changed[f.old_path] = f
    trees = {"head": _Tree(head), "base": _Tree(base)}
    cands = {side: t.candidates(selects) for side, t in trees.items()}
    out = []
    for folder in sorted(cands["head"] | cands["base"]):
        side = "head" if folder in cands["head"] else "base"
        reasons = _reasons(trees[side], folder, changed, cands[side])
        if folder in cands["base"] and side == "head":
            reasons += [r for r in _reasons(trees["base"], folder, changed, cands["base"]) if r not in reasons]
        if reasons:
            out.append(ReviewTarget(dir=folder, name=posixpath.basename(folder) or "(repository root)",
                              reasons=reasons, in_base=folder in cands["base"], in_head=folder in cands["head"]))
    return out
