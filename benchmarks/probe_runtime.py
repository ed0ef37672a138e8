"""How long the correctness, generality and numerics probes take on level-1-sized problems.

Target (issue 3): all probes for a level-1 elementwise/softmax problem finish within 30 s on 2
CPU cores (Triton under TRITON_INTERPRET=1). Runs a full review of each problem under
benchmarks/problems/ with sign-off off and prints the time spent in each tool node, the probes'
total (generality + numerics) and the review's wall time.

    python benchmarks/probe_runtime.py [--repeat N] [--problem NAME ...]

The machine may be shared: the script prints the load average next to each figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reviewer.api import start_review  # noqa: E402
from reviewer.config import ReviewConfig  # noqa: E402

PROBLEMS = ROOT / "benchmarks" / "problems"
TOOLS = ("builds", "correctness", "generality", "numerics")


def one(problem: Path, runs: Path, seed: int) -> dict[str, float]:
    marks: list[tuple[str, float]] = []

    def progress(msg: str) -> None:
        marks.append((msg.split(":", 1)[0], time.monotonic()))

    with tempfile.TemporaryDirectory(prefix="kreview-bench-") as tmp:
        sub = Path(tmp) / problem.name
        shutil.copytree(problem, sub)
        cfg = ReviewConfig(runs_dir=runs, seed=seed, signoff=False, only_tools=list(TOOLS))
        t0 = time.monotonic()
        review = start_review(sub, cfg, progress=progress)
        total = time.monotonic() - t0
    times = {}
    for (name, t), (_, t_next) in zip(marks, marks[1:] + [("end", t0 + total)], strict=True):
        if name in TOOLS:
            times[name] = t_next - t
    times["probes"] = times.get("generality", 0.0) + times.get("numerics", 0.0)
    times["review"] = total
    verdicts = {c.id: c.verdict for c in review.criteria if c.id in ("correctness", "generality", "numerics")}
    print(f"  {problem.name}: " + ", ".join(f"{k} {v:.1f}s" for k, v in times.items())
          + f"  verdicts {verdicts}  load {os.getloadavg()[0]:.1f}", flush=True)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--problem", action="append", help="folder name under benchmarks/problems")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    names = args.problem or sorted(p.name for p in PROBLEMS.iterdir() if p.is_dir())
    with tempfile.TemporaryDirectory(prefix="kreview-bench-runs-") as runs:
        for name in names:
            print(f"{name} (repeat {args.repeat}, {os.cpu_count()} cpus)")
            rows = [one(PROBLEMS / name, Path(runs), args.seed + i) for i in range(args.repeat)]
            probes = [r["probes"] for r in rows]
            print(f"  probes (generality + numerics): median {statistics.median(probes):.1f}s, "
                  f"max {max(probes):.1f}s; target <= 30s")


if __name__ == "__main__":
    main()
