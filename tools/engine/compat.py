"""Which optional libraries are installed, and whether a version is one the reviewer's checks were
tested with where those checks rely on a library's internals.

A missing extra is never a kernel failure: the checks that need it are *unverified* with one line that
says what to install. An untested version of a library whose internals a check hooks (the Triton
sanitizer: tools/engine/harness/sanitizer/compat.py; the Pallas TPU-interpreter checks: here) makes that check
*unverified* with the reason, never a verdict from internals that may have moved.
"""

from __future__ import annotations

import importlib.util
from importlib import metadata

# major.minor releases of JAX the Pallas checks (TPU interpreter races/OOB/uninitialised memory,
# partial-block padding) were tested with; they read private jax._src.pallas internals.
TESTED_JAX = ("0.10",)


def install_hint(extra: str) -> str:
    return f"pip install 'kernel-reviewer[{extra}]'"


def missing_extra(extra: str, *modules: str) -> str | None:
    """One line naming the extra to install when any of ``modules`` cannot be imported, else None."""
    absent = [m for m in modules if importlib.util.find_spec(m) is None]
    if not absent:
        return None
    return f"{', '.join(absent)} {'is' if len(absent) == 1 else 'are'} not installed: {install_hint(extra)}"


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def jax_missing() -> str | None:
    """Why Pallas kernels cannot run here at all (JAX absent), or None."""
    why = missing_extra("pallas", "jax", "jaxlib")
    return f"Pallas kernels need JAX; {why}" if why else None


def jax_untested(version: str | None = None) -> str | None:
    """Why the Pallas checks that use JAX internals are not run with this JAX, or None."""
    v = version if version is not None else _version("jax")
    if v is None:
        return jax_missing()
    if any(v == t or v.startswith(t + ".") for t in TESTED_JAX):
        return None
    tested = ", ".join(f"{t}.x" for t in TESTED_JAX)
    return (f"jax {v} is not a version the Pallas interpreter checks were tested with ({tested}); they use "
            f"JAX internals that may have changed, so they were not run (install a tested JAX to run them)")
