"""The environment a sandbox child sees: an allowlist, never the parent's secrets."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

# Rationale: an allowlist, not a denylist: a token under a name nobody thought of must not leak.
# OPENBLAS_* are kept because some CPUs here need them to avoid wrong BLAS results; CUDA_* and
# NVIDIA_* select devices; LD_LIBRARY_PATH finds the CUDA driver. Nothing else passes.
_PASS_THROUGH = (
    "PATH",
    "LANG",
    "LC_ALL",
    "LD_LIBRARY_PATH",
    "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_HOME",
    "CUDA_PATH",
    "NVIDIA_VISIBLE_DEVICES",
    "TZ",
)


# Rationale: an OpenMP worker (torch's intra-op pool) and an OpenBLAS one (numpy's) otherwise spin on the
# core after each parallel operation, which on a machine whose cores the other children and reviews also
# need takes their time (benchmarks/thread_spin.py). Waiting passively changes when a thread sleeps, never
# how work is split, so results are the same.
PASSIVE_WAIT = {"OMP_WAIT_POLICY": "PASSIVE", "OPENBLAS_THREAD_TIMEOUT": "4"}


def scrubbed_env(workdir: Path, *, threads: int, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Build the child's environment: allowlisted variables, a private HOME/TMPDIR/cache."""
    env = {k: os.environ[k] for k in _PASS_THROUGH if k in os.environ}
    home = workdir / "home"
    tmp = workdir / "tmp"
    cache = workdir / "triton-cache"
    for d in (home, tmp, cache):
        d.mkdir(parents=True, exist_ok=True)
    env.update(
        {
            "HOME": str(home),
            "TMPDIR": str(tmp),
            "TRITON_CACHE_DIR": str(cache),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
            "OMP_NUM_THREADS": str(threads),
            "MKL_NUM_THREADS": str(threads),
            "OPENBLAS_NUM_THREADS": str(threads),
            **PASSIVE_WAIT,
            # Rationale: JAX must not grab an accelerator or preallocate its memory in the sandbox.
            "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
        }
    )
    if extra:
        env.update(extra)
    return env
