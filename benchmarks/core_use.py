"""How many of the machine's cores a review keeps busy, over time, beside its progress lines.

    python benchmarks/core_use.py [EXAMPLE_DIR] [--seed 0] [--interval 0.5]

Runs ``kreview review EXAMPLE_DIR --no-signoff`` in a fresh process and samples ``/proc/stat`` every
``--interval`` seconds (the whole machine: run it with nothing else running). Prints, in time order,
each sample as busy cores (a bar) and each progress line the review wrote, then the mean. A stretch
where one core of two is busy is work that runs one step at a time; a tool whose child could start or
work there is a candidate for ``Tool.ahead`` (issue 34).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu_ticks() -> tuple[int, int]:
    """The whole machine's CPU time since boot, in clock ticks: (all, idle + iowait). The first eight fields
    only: guest time is already counted in user time."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:9]]
    return sum(values), values[3] + values[4]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("example", nargs="?", default=str(ROOT / "examples" / "softmax_triton"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--interval", type=float, default=0.5)
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    samples: list[tuple[float, float]] = []
    done = threading.Event()

    def sample() -> None:
        before = cpu_ticks()
        while not done.wait(args.interval):
            now = cpu_ticks()
            total, idle = now[0] - before[0], now[1] - before[1]
            samples.append((time.monotonic(), cores * (total - idle) / max(total, 1)))
            before = now

    with tempfile.TemporaryDirectory() as runs:
        t0 = time.monotonic()
        sampler = threading.Thread(target=sample)
        sampler.start()
        proc = subprocess.Popen([sys.executable, "-m", "reviewer.cli", "review", str(Path(args.example).resolve()),
                                 "--no-signoff", "--seed", str(args.seed), "--runs-dir", runs],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        assert proc.stderr is not None
        lines = [(time.monotonic(), line.rstrip()) for line in proc.stderr]
        proc.wait()
        done.set()
        sampler.join()
        wall = time.monotonic() - t0
    events = sorted([(t, f"  {line}") for t, line in lines if not line.endswith(" started")]
                    + [(t, f"busy {'#' * round(u * 10):{cores * 10}s} {u:.2f}") for t, u in samples])
    for t, text in events:
        print(f"{t - t0:6.2f} {text}")
    mean = sum(u for _, u in samples) / max(len(samples), 1)
    print(f"exit {proc.returncode}; wall {wall:.2f} s; mean busy cores {mean:.2f} of {cores}")
    return 0 if proc.returncode in (0, 1) else proc.returncode


if __name__ == "__main__":
    sys.exit(main())
