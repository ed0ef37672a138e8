"""How much time the integrity tools add to a review (target: <= 10 s on 2 cores).

For each submission: run ``builds`` and ``correctness`` as a review would (their children stay
warm, as they do in a review), then time ``integrity_static`` and ``integrity_runtime``. The
reported figure is the integrity tools' own wall time, median over ``--repeat`` fresh sessions.

    python benchmarks/integrity_overhead.py [--repeat 3] [DIR ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reviewer.core.config import ReviewConfig
from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tools.engine.registry import tools
from tests.kernelfiles import materialize

DEFAULT = [ROOT / "examples" / "softmax_triton", ROOT / "examples" / "gpumode_vectoradd",
           ROOT / "tests" / "kernels" / "integrity_matmul" / "good_linear_ieee.py",
           ROOT / "tests" / "kernels" / "integrity_softmax" / "good_softmax_glue.py"]


def one(path: Path, tmp: Path) -> dict[str, float]:
    sub_dir = materialize(path, tmp / "sub") if path.is_file() else path
    sub = load_submission(sub_dir)
    config = ReviewConfig(seed=1234, signoff=False, runs_dir=tmp / "runs")
    ctx = make_tool_context(sub, config, tmp / "run", 1234, detect_device("auto"))
    table = tools()
    times: dict[str, float] = {}
    try:
        for name in ("builds", "correctness", "integrity_static", "integrity_runtime"):
            t0 = time.perf_counter()
            table[name]().run(ctx)
            times[name] = time.perf_counter() - t0
    finally:
        ctx.session.close()
    bad = [e.summary for e in ctx.evidence if e.tool.startswith("integrity") and e.outcome in ("fail", "unverified")]
    if bad:
        print(f"  warning: {path.name}: {bad[:2]}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    worst = 0.0
    print(f"{'submission':34s} {'builds+correct':>14s} {'static':>8s} {'runtime':>8s} {'added':>8s}")
    for path in args.paths or DEFAULT:
        runs = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="kreview-bench-") as tmp:
                runs.append(one(path, Path(tmp)))
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        added = med["integrity_static"] + med["integrity_runtime"]
        worst = max(worst, added)
        print(f"{path.stem:34s} {med['builds'] + med['correctness']:13.2f}s {med['integrity_static']:7.2f}s "
              f"{med['integrity_runtime']:7.2f}s {added:7.2f}s")
    print(f"worst added time: {worst:.2f}s (target <= 10 s)")


if __name__ == "__main__":
    main()
