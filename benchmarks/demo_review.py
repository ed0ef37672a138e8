"""Wall time of the README demo review (target: <= 12 s on 2 idle cores, issue 34).

Usage: python benchmarks/demo_review.py [--repeat 3] [--against OTHER_CHECKOUT] [EXAMPLE_DIR]
Runs `kreview review examples/softmax_triton --no-signoff` in a fresh process each time (what a
user pays, interpreter start-up included) and prints min/median/max seconds. --against runs the same
review from another checkout (e.g. a ``git worktree`` of the previous commit) alternately with this one
(ABBA), same seeds, so both share the machine's load, and prints the ratio of the medians. For each it also prints
the median time at which the review printed its first progress line, the search's and task_audit's ends.
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


# progress lines (the CLI's stderr) whose first appearance each run records: where the time goes
STAGES = {"read": "reading the submission", "search": "generality:", "task_audit": "task_audit:"}


def _review(checkout: Path, example: str, seed: int) -> tuple[float, dict[str, float]]:
    """The review's wall time, and when each of ``STAGES`` was first printed (seconds from the start)."""
    with tempfile.TemporaryDirectory() as runs:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "reviewer.cli", "review", example, "--no-signoff",
                                 "--seed", str(seed), "--runs-dir", runs, "--format", "json"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=checkout)
        assert proc.stderr is not None
        marks: dict[str, float] = {}
        lines: list[str] = []
        for line in proc.stderr:
            lines.append(line)
            for stage, text in STAGES.items():
                if stage not in marks and text in line:
                    marks[stage] = time.perf_counter() - t0
        proc.wait()
        dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"review from {checkout} failed:\n{''.join(lines)[-3000:]}")
    return dt, marks


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("example", nargs="?", default=str(ROOT / "examples" / "softmax_triton"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--against", type=Path, help="another checkout, run alternately with this one")
    args = ap.parse_args()
    example = str(Path(args.example).resolve())
    checkouts = {"this": ROOT} | ({"other": args.against.resolve()} if args.against else {})
    times: dict[str, list[float]] = {name: [] for name in checkouts}
    stages: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
    for i in range(args.repeat):
        # Rationale: the order alternates each round (ABBA), so neither checkout always runs first after the
        # other's process exits: with a fixed order the first of a pair was slower by up to 0.5 s here
        order = list(checkouts.items()) if i % 2 == 0 else list(checkouts.items())[::-1]
        for name, checkout in order:
            dt, marks = _review(checkout, example, i)
            times[name].append(dt)
            stages[name].append(marks)
            print(f"run {i} ({name}): {dt:.1f} s")
    for name, ts in times.items():
        print(f"demo review wall time ({name}) over {len(ts)} runs: min {min(ts):.1f} s, "
              f"median {statistics.median(ts):.1f} s, max {max(ts):.1f} s")
        at = {stage: statistics.median(m[stage] for m in stages[name] if stage in m)
              for stage in STAGES if any(stage in m for m in stages[name])}
        print(f"  median time at which each stage was printed ({name}): "
              + ", ".join(f"{STAGES[k]!r} {v:.2f} s" for k, v in at.items()))
    if args.against:
        print(f"ratio this/other of the medians: {statistics.median(times['this']) / statistics.median(times['other']):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
