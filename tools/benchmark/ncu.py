"""Nsight Compute (ncu), when installed: duration, DRAM throughput, achieved occupancy and
speed-of-light percentages of the kernels inside the benchmark's timed region.

The benchmark child is started through a wrapper script that runs its Python under
``ncu --nvtx --nvtx-include kreview_timed/``, so only kernels launched between the timed region's
NVTX push/pop are profiled (not the L2 flush or the input copies). Unverified without a GPU.
"""

from __future__ import annotations

import csv
import io
import shlex
import shutil
import statistics
from pathlib import Path

METRICS = {
    "gpu__time_duration.sum": "duration",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram_throughput_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved_occupancy_pct",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm_sol_pct",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "memory_sol_pct",
}
_TIME_UNITS = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3, "s": 1.0,
               "second": 1.0}


def find_ncu() -> str | None:
    for cand in ("ncu", "/usr/local/cuda/bin/ncu"):
        hit = shutil.which(cand) or (cand if Path(cand).is_file() else None)
        if hit:
            return hit
    return None


def wrapper(ncu: str, python: str, log: Path, folder: Path) -> Path:
    """A script standing in for the Python interpreter of a sandbox child, running it under ncu."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "python-under-ncu"
    args = [ncu, "--target-processes", "all", "--nvtx", "--nvtx-include", "kreview_timed/", "--csv",
            "--log-file", str(log), "--force-overwrite", "--metrics", ",".join(METRICS), python]
    script.write_text("#!/bin/sh\nexec " + " ".join(shlex.quote(a) for a in args) + ' "$@"\n')
    script.chmod(0o755)
    return script


def parse_csv(text: str) -> dict[str, dict[str, float]]:
    """ncu ``--csv`` output -> ``{kernel: {metric: median over launches}}`` (duration in seconds)."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    if not lines:
        return {}
    values: dict[str, dict[str, list[float]]] = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        name = METRICS.get(row.get("Metric Name", ""))
        if name is None:
            continue
        try:
            value = float(row.get("Metric Value", "").replace(",", ""))
        except ValueError:
            continue
        if name == "duration":
            value *= _TIME_UNITS.get(row.get("Metric Unit", "").strip().lower(), 1e-9)
        values.setdefault(row.get("Kernel Name", "?"), {}).setdefault(name, []).append(value)
    return {k: {m: statistics.median(v) for m, v in ms.items()} for k, ms in values.items()}
