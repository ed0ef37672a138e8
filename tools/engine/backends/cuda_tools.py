"""Where the CUDA toolkit's programs are on this machine (nvcc, compute-sanitizer)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def find_nvcc() -> str | None:
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    cands = [shutil.which("nvcc"), *(str(Path(h) / "bin" / "nvcc") for h in [home] if h), "/usr/local/cuda/bin/nvcc"]
    return next((c for c in cands if c and Path(c).is_file()), None)


def find_compute_sanitizer() -> str | None:
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    cands = [shutil.which("compute-sanitizer"),
             *(str(Path(h) / "bin" / "compute-sanitizer") for h in [home] if h),
             "/usr/local/cuda/bin/compute-sanitizer", "/usr/local/cuda/compute-sanitizer/compute-sanitizer"]
    nvcc = find_nvcc()
    if nvcc:
        cands.append(str(Path(nvcc).resolve().parent / "compute-sanitizer"))
    try:
        import nvidia.cuda_sanitizer_api as pkg  # the pip wheel of the sanitizer ships the binary

        cands.append(str(Path(next(iter(pkg.__path__))) / "compute-sanitizer" / "compute-sanitizer"))
    except ImportError:
        pass
    return next((c for c in cands if c and Path(c).is_file() and os.access(c, os.X_OK)), None)
