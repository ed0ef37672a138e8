"""What a kept answer depends on beyond its inputs: kreview's own code and the libraries it computes with.

The on-disk caches (reviewer/audit_cache.py, tools/engine/reference_store.py) key their entries by these,
so any edit of kreview, and any other torch/Triton/JAX/NumPy or Python, is a miss, never a stale answer.
"""

from __future__ import annotations

import hashlib
import platform
from functools import cache
from importlib import metadata
from pathlib import Path

from reviewer.core.submission import SKIPPED_DIRS

LIBRARIES = ("torch", "triton", "jax", "jaxlib", "numpy")
# Rationale: kreview's own sources, where the reference's harness (the child) and everything the parent
# does with an answer live; a digest of all of them cannot miss a module.
_PACKAGES = ("reviewer", "tools")
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]


@cache
def code_version() -> str:
    """kreview's distribution version and the SHA-256 of its Python sources (paths and contents, in order)."""
    try:
        version = metadata.version("kernel-reviewer")
    except metadata.PackageNotFoundError:
        version = "0"
    h = hashlib.sha256(version.encode())
    for pkg in _PACKAGES:
        for path in sorted((_PACKAGE_ROOT / pkg).rglob("*.py")):
            if SKIPPED_DIRS.isdisjoint(path.relative_to(_PACKAGE_ROOT).parts):
                h.update(str(path.relative_to(_PACKAGE_ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return f"{version}+{h.hexdigest()[:16]}"


@cache
def library_versions() -> dict[str, str | None]:
    """Python's version, the machine, and the installed version of each library in ``LIBRARIES``."""
    out: dict[str, str | None] = {"python": platform.python_version(), "machine": platform.machine()}
    for dist in LIBRARIES:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out
