"""Wall time of the README demo review (target: <= 12 s on 2 idle cores, issue 34).

Usage: python benchmarks/demo_review.py [--repeat 3] [--against OTHER_CHECKOUT] [EXAMPLE_DIR]
Runs `kreview review examples/softmax_triton --no-signoff` in a fresh process each time (what a
user pays, interpreter start-up included) and prints min/median/max seconds. --against runs the same
review from another checkout (e.g. a ``git worktree`` of the previous commit) alternately with this one
(ABBA), same seeds, so both share the machine's load, and prints the ratio of the medians.
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


def _review(checkout: Path, example: str, seed: int) -> float:
    with tempfile.TemporaryDirectory() as runs:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "reviewer.cli", "review", example, "--no-signoff",
                               "--seed", str(seed), "--runs-dir", runs, "--format", "json"],
                              capture_output=True, text=True, cwd=checkout)
        dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"review from {checkout} failed:\n{proc.stderr[-3000:]}")
    return dt


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("example", nargs="?", default=str(ROOT / "examples" / "softmax_triton"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--against", type=Path, help="another checkout, run alternately with this one")
    args = ap.parse_args()
    example = str(Path(args.example).resolve())
    checkouts = {"this": ROOT} | ({"other": args.against.resolve()} if args.against else {})
    times: dict[str, list[float]] = {name: [] for name in checkouts}
    for i in range(args.repeat):
        # Rationale: the order alternates each round (ABBA), so neither checkout always runs first after the
        # other's process exits: with a fixed order the first of a pair was slower by up to 0.5 s here
        order = list(checkouts.items()) if i % 2 == 0 else list(checkouts.items())[::-1]
        for name, checkout in order:
            times[name].append(_review(checkout, example, i))
            print(f"run {i} ({name}): {times[name][-1]:.1f} s")
    for name, ts in times.items():
        print(f"demo review wall time ({name}) over {len(ts)} runs: min {min(ts):.1f} s, "
              f"median {statistics.median(ts):.1f} s, max {max(ts):.1f} s")
    if args.against:
        print(f"ratio this/other of the medians: {statistics.median(times['this']) / statistics.median(times['other']):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
