"""The bytecode of the reviewer's own packages, written by the parent for the sandbox children.

A child imports ``tools`` and ``reviewer`` from the reviewer's folder, bound read-only, so it can never
write their ``__pycache__`` itself: a module whose bytecode is missing or stale is compiled from source
at every child start. That is so for every module only children import (the harness, its instruments)
and, where ``PYTHONDONTWRITEBYTECODE`` is set (as in many containers and CI images), for all of them:
about 0.1 s of each start on the 2-core dev machine (docs/sandbox.md). So before a child is launched,
the parent compiles what is missing or stale, once per process: about 0.5 s the first time for the
whole tree, a few milliseconds when it is up to date. Only the reviewer's own source is compiled, by the
parent, from the files on disk; nothing of the task or the submission. A folder the parent cannot write
(a system install) is left as it is: the children then compile in memory, as before.
"""

from __future__ import annotations

import compileall
import threading
from pathlib import Path

_done: set[Path] = set()
_lock = threading.Lock()


def ensure(root: Path, packages: tuple[str, ...]) -> bool:
    """Write missing or stale bytecode of ``root``/``packages`` (timestamp-checked, as Python's own);
    once per process and root. True when every module has current bytecode."""
    with _lock:
        if root in _done:
            return True
        ok = True
        for name in packages:
            folder = root / name
            if folder.is_dir():
                # quiet=2: a module that does not compile (or a folder not writable) prints nothing;
                # the child then compiles that module itself, as without this step
                ok = bool(compileall.compile_dir(str(folder), quiet=2, workers=1)) and ok
        _done.add(root)
        return ok
