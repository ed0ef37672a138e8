"""Telling the submission's own code from library and harness code by a frame's file name.

Instruments use it to say *where* in the user's files something happened (a torch operator, a
file opened) and to ignore what the harness and the libraries do on their own.
"""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from tools.engine.sandbox.libraries import holds_distributions

_HARNESS = str(Path(__file__).resolve().parents[2]) + os.sep  # the ``tools`` package


def _library_roots() -> tuple[str, ...]:
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.add(path)
    for name in ("torch", "triton", "numpy", "jax"):
        mod = sys.modules.get(name)
        if mod is not None and getattr(mod, "__file__", None):
            roots.add(str(Path(mod.__file__).resolve().parents[1]))
    # Rationale: libraries installed outside the environment (``pip install --target DIR`` on PYTHONPATH,
    # which the sandbox binds read-only and the child puts on its path: tools/engine/sandbox/libraries.py)
    # are libraries too: typing_extensions or pydantic walking the stack there is not the submission.
    # Read when this module is imported, before the submission's folder is on the path.
    for entry in sys.path:
        if entry and holds_distributions(entry):
            roots.add(os.path.realpath(entry))
    return tuple(sorted(r.rstrip(os.sep) + os.sep for r in roots if r))



# Rationale: code generated into the child's private caches (Inductor's modules, Triton's launchers)
# is the libraries' doing, not the submission's.
_GENERATED = tuple(p.rstrip(os.sep) + os.sep for p in (
    os.environ.get("TMPDIR"), os.environ.get("TRITON_CACHE_DIR"), os.environ.get("XDG_CACHE_HOME"),
    os.environ.get("TORCH_EXTENSIONS_DIR")) if p)
_ROOTS = _library_roots() + _GENERATED


def library_roots() -> tuple[str, ...]:
    return _ROOTS


def _classify(filename: str, harness: str, roots: tuple[str, ...]) -> str:
    if filename.startswith(("<frozen", "<built-in")):
        return "library"
    if filename.startswith("<"):
        return "user"
    if filename.startswith(harness):
        return "harness"
    if filename.startswith(roots):
        return "library"
    return "user"


def kind_of(filename: str) -> str:
    """``harness``, ``library`` or ``user`` for a code object's file name.

    Frozen modules are library; other pseudo-files (``<string>`` from exec) are user code."""
    return _classify(filename, _HARNESS, _ROOTS)


def frozen_kind_of() -> Callable[[str], str]:
    """``kind_of`` with the harness folder and library roots of now held in a closure.

    Rationale: the out-of-band alarm (tools/engine/harness/alarm.py) must attribute events by what
    was true when it was installed: a submission that rebinds this module's globals (reached through
    any harness function's ``__globals__``, which is not audited) must not turn its own files into
    library files for it. The partial holds the function object itself, not its name here."""
    return functools.partial(_classify, harness=_HARNESS, roots=_ROOTS)


def outward(frame: FrameType | None, *, skip: frozenset[str] = frozenset(),
            depth: int = 64) -> tuple[str, FrameType | None]:
    """Walking outwards from ``frame`` past library frames (and files in ``skip``): the first frame that is
    the user's (``("user", frame)``) or the harness's (``("harness", frame)``), or the import system reading
    modules (``("import", frame)``); ``("none", None)`` past ``depth`` frames or the outermost."""
    while frame is not None and depth > 0:
        name = frame.f_code.co_filename
        if name.startswith("<frozen importlib"):
            return "import", frame
        if name not in skip:
            kind = kind_of(name)
            if kind in ("user", "harness"):
                return kind, frame
        frame = frame.f_back
        depth -= 1
    return "none", None


def origin(frame: FrameType | None, root: str | None = None, *, skip: frozenset[str] = frozenset(),
           depth: int = 64) -> tuple[str, dict[str, object] | None]:
    """Who did what is happening at ``frame`` (``outward``): ``("user", site)`` with the user's file, line
    and function, ``("harness", None)``, ``("import", None)`` or ``("none", None)``."""
    kind, found = outward(frame, skip=skip, depth=depth)
    if kind != "user" or found is None:
        return kind, None
    return "user", {"file": relative(found.f_code.co_filename, root), "line": found.f_lineno,
                    "function": found.f_code.co_name}


def user_site(frame: FrameType | None, root: str | None = None) -> dict[str, object] | None:
    """The innermost user frame at or above ``frame`` if no harness frame comes first."""
    kind, site = origin(frame, root)
    return site if kind == "user" else None


def relative(path: str, root: str | None) -> str:
    if root and not path.startswith("<"):
        try:
            return str(Path(path).resolve().relative_to(Path(root).resolve()))
        except ValueError:
            return path
    return path if path.startswith("<") else os.path.basename(path)
