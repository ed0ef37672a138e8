"""Wall time of the README demo review (target: <= 30 s on 2 cores).

Usage: python benchmarks/demo_review.py [--repeat 3] [EXAMPLE_DIR]
Runs `kreview review examples/softmax_triton --no-signoff` in a fresh process each time (what a
user pays, interpreter start-up included) and prints min/median/max seconds.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("example", nargs="?", default=str(ROOT / "examples" / "softmax_triton"))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    times = []
    for i in range(args.repeat):
        with tempfile.TemporaryDirectory() as runs:
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "reviewer.cli", "review", args.example, "--no-signoff",
                                   "--seed", str(i), "--runs-dir", runs, "--format", "json"],
                                  capture_output=True, text=True)
            dt = time.perf_counter() - t0
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        times.append(dt)
        print(f"run {i}: {dt:.1f} s")
    print(f"demo review wall time over {len(times)} runs: min {min(times):.1f} s, "
          f"median {statistics.median(times):.1f} s, max {max(times):.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
