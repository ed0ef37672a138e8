"""Time a full review of each bundled Pallas example on this machine (target: <= 60 s each on 2 cores).

Usage: python benchmarks/pallas_review.py [--repeat N]
Every registered tool runs (as `kreview review` would), sign-off off, a fixed seed. Prints one line
per example: wall time, overall verdict, the verdict per criterion, and the slowest tools.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ("rowsum_pallas", "rowsum_pallas_buggy")
TARGET_S = 60.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    worst = 0.0
    for name in EXAMPLES:
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as runs:
                t0 = time.perf_counter()
                review = start_review(ROOT / "examples" / name, ReviewConfig(runs_dir=Path(runs), seed=1234,
                                                                              signoff=False))
                wall = time.perf_counter() - t0
            per_tool: dict[str, float] = defaultdict(float)
            for e in review.evidence:
                per_tool[e.tool] += e.duration_s
            slow = ", ".join(f"{t} {s:.1f}s" for t, s in sorted(per_tool.items(), key=lambda kv: -kv[1])[:4])
            verdicts = " ".join(f"{c.id}={c.verdict}" for c in review.criteria)
            print(f"{name}: {wall:.1f}s wall, overall={review.overall} | {verdicts} | calls: {slow}")
            worst = max(worst, wall)
    print(f"slowest review {worst:.1f}s (target <= {TARGET_S:.0f}s): {'OK' if worst <= TARGET_S else 'OVER'}")
    return 0 if worst <= TARGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
