"""The libraries a sandbox child imports are the reviewer's own: same folders, same files.

The child gets no ``PYTHONPATH`` and no user site-packages (tools/engine/sandbox/entry.py), so a library the reviewer
imports from a ``PYTHONPATH`` folder (``pip install --target DIR``, a second Triton kept beside the
virtual environment) would come from the virtual environment in the child instead: the review would
record one version and run another. ``library_paths`` names the ``PYTHONPATH`` folders that hold
installed distributions; the sandbox mounts them read-only and the child puts them on its path in the
same order. Other ``PYTHONPATH`` folders (a user's project folder) are not shown to the child: the
sandbox shows a submission nothing of the user's. ``origins`` is where each library the harness
relies on would be imported from; the parent compares the child's with its own at start-up and stops
a child that would run other library files (an environment problem, never a kernel failure).
"""

from __future__ import annotations

import importlib.util
import os

LIBRARIES = ("torch", "triton", "numpy", "jax", "jaxlib")


def holds_distributions(folder: str) -> bool:
    try:
        return any(n.endswith((".dist-info", ".egg-info")) for n in os.listdir(folder))
    except OSError:
        return False


def library_paths() -> list[str]:
    """The ``PYTHONPATH`` folders (resolved, in order) that hold installed distributions."""
    out: list[str] = []
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry and os.path.isdir(entry) and holds_distributions(entry):
            real = os.path.realpath(entry)
            if real not in out:
                out.append(real)
    return out


def origins(names: tuple[str, ...] = LIBRARIES) -> dict[str, str | None]:
    """The file each top-level package would be imported from (without importing it), or None."""
    found: dict[str, str | None] = {}
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        origin = spec.origin if spec is not None else None
        found[name] = os.path.realpath(origin) if origin else None
    return found


def mismatches(parent: dict[str, str | None], child: dict[str, str | None]) -> list[str]:
    """One line per library the reviewer imports from a file the child would not use."""
    out = []
    for name, mine in parent.items():
        if mine is not None and child.get(name) != mine:
            theirs = child.get(name) or "nowhere"
            out.append(f"{name}: the reviewer imports {mine}, the sandbox child {theirs}")
    return out
