"""Keeping the reviewer's own packages out of a submission's way inside a sandbox child.

The child imports the harness (``tools.engine...``, ``reviewer.core...``) before any user code, so
without this step ``tools`` and ``reviewer`` in ``sys.modules`` are the reviewer's, and a submission
that ships its own ``tools/`` or ``reviewer/`` package (``from tools.launch import next_pow2``)
cannot import it. ``withdraw`` is called once every module the child will run has been imported: it
takes the reviewer's modules out of ``sys.modules`` (the harness keeps its references: module
globals, the objects the child holds) and puts a finder first on ``sys.meta_path`` that looks the
top-level names ``tools`` and ``reviewer`` up on ``sys.path`` without the reviewer's own folder, so
the submission's folder wins even with a namespace package (no ``__init__.py``), which would
otherwise lose to the reviewer's regular package further down the path. A name found nowhere else
falls through to the normal search (the installed reviewer), as it did before.

The rule this sets for code run in the child: it imports every module of ours it needs at module
level (or in a prelude's ``install``, which runs before ``withdraw``), never lazily inside a function
that runs after user code is loaded; such an import would find the submission's package or a fresh
copy of ours, not the harness's own. tests/unit/tools/engine/sandbox/test_own_modules.py checks it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import sys
from types import ModuleType

OWN_PACKAGES = ("tools", "reviewer")


def is_own(name: str) -> bool:
    """Whether ``name`` is one of the reviewer's module names (``tools``, ``reviewer.core.x``...)."""
    return name.partition(".")[0] in OWN_PACKAGES


# a path entry holding this file holds a copy of the reviewer (a source checkout or an installed one)
_MARKER = os.path.join("tools", "engine", "sandbox", "own_modules.py")


class _SubmissionFirst(importlib.abc.MetaPathFinder):
    """``tools`` and ``reviewer`` from any path entry that is not a copy of the reviewer, if one has them.

    The harness's own folder is not the only copy on the path: a source checkout run with the package
    also installed (``pip install .``) has a second one in site-packages, and that regular package
    would again win over a submission's namespace package."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)

    def _is_reviewer(self, entry: str) -> bool:
        real = os.path.realpath(entry or ".")
        return real == self.root or os.path.isfile(os.path.join(real, _MARKER))

    def _others(self) -> list[str]:
        return [e for e in sys.path if isinstance(e, str) and not self._is_reviewer(e)]

    def find_spec(self, name: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if path is not None or name not in OWN_PACKAGES:
            return None
        return importlib.machinery.PathFinder.find_spec(name, self._others())


def withdraw(root: str) -> dict[str, ModuleType]:
    """Take the reviewer's modules out of ``sys.modules`` and let the submission's own ``tools`` and
    ``reviewer`` come first from now on. Returns the modules taken out (the caller keeps them)."""
    held = {name: sys.modules.pop(name) for name in [n for n in sys.modules if is_own(n)]}
    sys.meta_path.insert(0, _SubmissionFirst(root))
    importlib.invalidate_caches()
    return held
