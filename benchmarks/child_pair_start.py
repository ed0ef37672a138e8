"""Latency until a review's two sandbox children (reference and submission) are both ready: one after
the other (as before SandboxWorker.launch) and launched together (as SandboxSession does now).

    python benchmarks/child_pair_start.py [--pairs 8]

Each pair of measurements runs serial then parallel (alternating which goes first), back to back, so
a shared machine's load drifts little within a pair; the figure is the median of the per-pair ratios
parallel / serial. Same children as a review's (bubblewrap, seccomp, limits, torch and the harness
imported, isolation measured); no submission is loaded. Prints a table and the JSON on the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _pair(tmp: Path, parallel: bool, tag: str) -> float:
    from reviewer.core.limits import SandboxLimits
    from tools.engine.sandbox import SandboxWorker

    workers = [SandboxWorker(f"{tag}-{role}", tmp / f"{tag}-{role}", SandboxLimits()) for role in ("ref", "sub")]
    t0 = time.perf_counter()
    try:
        if parallel:
            for w in workers:
                w.launch()
            results = [w.wait_ready() for w in workers]
        else:
            results = [w.start() for w in workers]
        dt = time.perf_counter() - t0
        assert all(r.answered and r.ok for r in results), [r.failure_text() for r in results]
        return dt
    finally:
        for w in workers:
            w.remove()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=8)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="kreview-pair-") as tmp_s:
        tmp = Path(tmp_s)
        _pair(tmp, False, "warm")  # page cache warm for both
        for i in range(args.pairs):
            order = [False, True] if i % 2 == 0 else [True, False]
            got = {p: _pair(tmp, p, f"{i}-{int(p)}") for p in order}
            rows.append({"serial_s": got[False], "parallel_s": got[True], "ratio": got[True] / got[False],
                         "load": os.getloadavg()[0]})
            print(f"  pair {i}: serial {got[False]:5.2f}s  parallel {got[True]:5.2f}s  "
                  f"x{rows[-1]['ratio']:.2f}  load {rows[-1]['load']:.1f}", flush=True)
    out = {"pairs": rows, "median_ratio": statistics.median(r["ratio"] for r in rows),
           "median_serial_s": statistics.median(r["serial_s"] for r in rows),
           "median_parallel_s": statistics.median(r["parallel_s"] for r in rows), "cpus": os.cpu_count()}
    print(f"median: serial {out['median_serial_s']:.2f}s, parallel {out['median_parallel_s']:.2f}s, "
          f"ratio {out['median_ratio']:.2f} ({os.cpu_count()} CPUs)")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
