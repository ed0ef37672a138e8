"""How long the generality and numerics checks take on level-1-sized problems.

Target (issue 3): the full set of probes for a level-1 elementwise/softmax problem finishes within
30 s on 2 CPU cores (Triton under TRITON_INTERPRET=1). For each problem under
benchmarks/problems/ the script runs two reviews with sign-off off: builds + correctness only, and
builds + correctness + generality + numerics. It prints

- wall time per tool node of the second review, and the probes' wall time (generality + numerics);
- the probes' CPU time: CPU seconds of the reviewer and its (reaped) sandbox children in the second
  review minus the first. Calls run one at a time, so on an idle 2-core machine the probes' wall
  time is about their CPU time: this figure does not depend on how busy a shared machine is.

With ``--full`` the tools' work budgets are lifted so every probe runs (the full set); without it
they run as configured (budget_units of each tool, docs/verdict-determinism.md) and the script
reports what the budgets cut.

    python benchmarks/generality_numerics_runtime.py [--full] [--repeat N] [--problem NAME ...]
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

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from reviewer.core.models import Review
from tools.generality import GeneralityTool
from tools.numerics import NumericsTool

PROBLEMS = ROOT / "benchmarks" / "problems"
BASE_TOOLS = ["builds", "correctness"]
TOOLS = [*BASE_TOOLS, "generality", "numerics"]


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _review(problem: Path, runs: Path, seed: int, tools: list[str], progress=None) -> tuple[Review, float, float]:
    with tempfile.TemporaryDirectory(prefix="kreview-bench-") as tmp:
        sub = Path(tmp) / problem.name
        shutil.copytree(problem, sub)
        cfg = ReviewConfig(runs_dir=runs, seed=seed, signoff=False, only=tools)
        c0, t0 = _cpu(), time.monotonic()
        review = start_review(sub, cfg, progress=progress)
        return review, time.monotonic() - t0, _cpu() - c0


def one(problem: Path, runs: Path, seed: int) -> dict[str, float]:
    _, _, cpu_base = _review(problem, runs, seed, BASE_TOOLS)
    marks: list[tuple[str, float]] = []
    review, wall, cpu = _review(problem, runs, seed, TOOLS,
                                progress=lambda msg: marks.append((msg.split(":", 1)[0], time.monotonic())))
    end = marks[-1][1] if marks else time.monotonic()
    times = {name: t_next - t for (name, t), (_, t_next) in zip(marks, marks[1:] + [("end", end)], strict=True)
             if name in TOOLS}
    times["probes"] = times.get("generality", 0.0) + times.get("numerics", 0.0)
    times["probes_cpu"] = max(0.0, cpu - cpu_base)
    times["review"] = wall
    verdicts = {c.id: c.verdict for c in review.criteria if c.id in ("correctness", "generality", "numerics")}
    num = [e for e in review.evidence if e.tool == "numerics"]
    skipped = sum(1 for e in num if "not run" in e.summary)
    searches = [e.result.get("search", {}) for e in review.evidence if e.tool == "generality"]
    configs = sum(sum(s.get("counts", {}).values()) for s in searches)
    cut = [s.get("axis") for s in searches if s.get("unrun")]
    print(f"  {problem.name}: " + ", ".join(f"{k} {v:.1f}s" for k, v in times.items())
          + f"\n    verdicts {verdicts}; numerics probes run {len(num) - skipped}/{len(num)}; generality "
          f"configurations {configs} (cut by budget: {cut or 'none'}); load {os.getloadavg()[0]:.1f}", flush=True)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", action="store_true", help="lift the tools' work budgets (every probe runs)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--problem", action="append", help="folder name under benchmarks/problems")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.full:
        GeneralityTool.budget_units = NumericsTool.budget_units = 1e9
    names = args.problem or sorted(p.name for p in PROBLEMS.iterdir() if p.is_dir())
    with tempfile.TemporaryDirectory(prefix="kreview-bench-runs-") as runs:
        for name in names:
            print(f"{name} (repeat {args.repeat}, {os.cpu_count()} cpus, budgets "
                  f"{'lifted' if args.full else f'{GeneralityTool.budget_units:g} + {NumericsTool.budget_units:g} units'})")
            rows = [one(PROBLEMS / name, Path(runs), args.seed + i) for i in range(args.repeat)]
            for key in ("probes", "probes_cpu"):
                vals = [r[key] for r in rows]
                print(f"  {key}: median {statistics.median(vals):.1f}s, max {max(vals):.1f}s (target <= 30s)")


if __name__ == "__main__":
    main()
