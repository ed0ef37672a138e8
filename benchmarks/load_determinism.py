"""Same kernel, same seed, idle or loaded machine: same verdicts and the same checks run (issue 16).

For each kernel file the script reviews it twice with the same seed (builds, correctness,
generality, numerics; sign-off off): once as the machine is, once with every core saturated by
busy-loop processes it starts (one per core) and stops afterwards. It prints per kernel the wall
time of both reviews, the verdicts, and whether the list of checks run is identical. A check is
(tool, check, outcome, defect, case) of every evidence item, plus every configuration a generality
search tried with its verdict: what ran and how it was judged, never how long it took.

    python benchmarks/load_determinism.py [--seed N] [--busy N] [KERNEL.py ...]

Kernel files are tests/kernels/<family>/<file>.py (the family's reference is copied beside them)
or submission directories (benchmarks/problems/<name>); the default is a correct softmax and the persistent-loop softmax that assumes column stride 1.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from reviewer.core.models import Review
from tests.kernelfiles import materialize

TOOLS = ["builds", "correctness", "generality", "numerics"]
DEFAULT = [ROOT / "tests/kernels/softmax/good_softmax.py", ROOT / "tests/kernels/softmax_plan/bad_persistent_col_stride.py"]


def _busy() -> None:
    while True:
        pass


def checks(review: Review) -> list[Any]:
    out: list[Any] = []
    for e in review.evidence:
        case = (e.inputs or {}).get("case") or {}
        out.append([e.tool, e.check, e.outcome, e.defect, {k: v for k, v in case.items() if k != "label"}])
        for t in ((e.result or {}).get("search") or {}).get("tried", []):
            out.append(["tried", e.tool, t["config"], t["verdict"]])
    return out


def verdicts(review: Review) -> dict[str, str]:
    return {c.id: c.verdict for c in review.criteria} | {"overall": review.overall}


def review(path: Path, seed: int, budget: float) -> tuple[Review, float]:
    with tempfile.TemporaryDirectory(prefix="kreview-load-") as tmp:
        if path.is_dir():  # a submission directory (benchmarks/problems/<name>)
            sub = Path(tmp) / path.name
            shutil.copytree(path, sub)
        else:
            sub = materialize(path, Path(tmp) / "sub")
        t0 = time.monotonic()
        r = start_review(sub, ReviewConfig(runs_dir=Path(tmp) / "runs", seed=seed, signoff=False, only=TOOLS,
                                           budget=budget))
        return r, time.monotonic() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kernels", nargs="*", type=Path)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--busy", type=int, default=os.cpu_count() or 2, help="busy-loop processes while loaded")
    ap.add_argument("--budget", type=float, default=1.0)
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    rows, same_all = [], True
    for path in args.kernels or DEFAULT:
        load0 = os.getloadavg()[0]
        idle, t_idle = review(path, args.seed, args.budget)
        procs = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(args.busy)]
        for p in procs:
            p.start()
        try:
            time.sleep(2)
            load1 = os.getloadavg()[0]
            busy, t_busy = review(path, args.seed, args.budget)
        finally:
            for p in procs:
                p.terminate()
                p.join()
        same_v, same_c = verdicts(idle) == verdicts(busy), checks(idle) == checks(busy)
        same_all &= same_v and same_c
        row = {"kernel": f"{path.parent.name}/{path.name}", "busy_processes": args.busy, "seed": args.seed, "wall_idle_s": round(t_idle, 1),
               "wall_loaded_s": round(t_busy, 1), "load_before_idle_run": round(load0, 2),
               "load_during_loaded_run_start": round(load1, 2), "verdicts": verdicts(idle),
               "verdicts_loaded": verdicts(busy), "checks": len(checks(idle)), "same_verdicts": same_v,
               "same_checks": same_c}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    print("identical verdicts and checks under load:", same_all)
    return 0 if same_all else 1


if __name__ == "__main__":
    sys.exit(main())
