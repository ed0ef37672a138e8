"""The bytecode of the reviewer's own packages, written by the parent for the sandbox children.

A child imports ``tools`` and ``reviewer`` from the reviewer's folder, bound read-only, so it can never
write their ``__pycache__`` itself: a module whose bytecode is missing or stale is compiled from source
at every child start. That is so for every module only children import (the harness, its instruments)
and, where ``PYTHONDONTWRITEBYTECODE`` is set (as in many containers and CI images), for all of them:
about 0.1 s of each start on the 2-core dev machine (docs/sandbox.md). So before a child is launched,
the parent compiles what is missing or stale, once per process: about 0.5 s the first time for the
whole tree, a few milliseconds when it is up to date.

It writes into the reviewer's own folders whatever ``PYTHONDONTWRITEBYTECODE`` says (the children need
the files there); ``KREVIEW_CHILD_BYTECODE=off`` turns this off, and then the children compile in memory
at each start, as they did before. Nothing is written where the children would not read it: not with a
``PYTHONPYCACHEPREFIX`` (a child has none), not into a folder this process cannot write (a system
install), and always at optimisation level 0 (a child runs without ``-O``). Only the reviewer's own
source is compiled, by the parent, from the files on disk; nothing of the task or the submission.
"""

from __future__ import annotations

import compileall
import os
import sys
import threading
from pathlib import Path

_done: set[Path] = set()
_lock = threading.Lock()


def wanted() -> str | None:
    """None where the bytecode is written, else why not."""
    if os.environ.get("KREVIEW_CHILD_BYTECODE", "").strip().lower() == "off":
        return "KREVIEW_CHILD_BYTECODE=off"
    if sys.pycache_prefix:
        return "PYTHONPYCACHEPREFIX is set: bytecode written there is not where a child looks"
    return None


def ensure(root: Path, packages: tuple[str, ...]) -> bool:
    """Write missing or stale bytecode of ``root``/``packages`` (timestamp-checked, as Python's own);
    once per process and root. True when every module was checked and has current bytecode."""
    with _lock:
        if root in _done:
            return True
        _done.add(root)
        if wanted() is not None:
            return False
        ok = True
        for name in packages:
            folder = root / name
            if not folder.is_dir():
                continue
            if not os.access(folder, os.W_OK):
                ok = False
                continue
            # quiet=2: a module that does not compile prints nothing; the child then compiles that
            # module itself, as without this step
            ok = bool(compileall.compile_dir(str(folder), quiet=2, workers=1, optimize=0)) and ok
        return ok
