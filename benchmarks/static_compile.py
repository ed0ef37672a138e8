"""How long the resources tool's static compile takes per kernel per target (target: <= 10 s on 2 cores).

Runs the resources tool on the bundled Triton examples, the resources test kernels (Triton and CUDA
C) and reports, per evidence item (one kernel x one target), the compile time (Triton: the compile
child's triton.compile plus ptxas in the parent; CUDA C: nvcc), and per submission the tool's wall
time (which adds capturing the launches under the interpreter and starting the compile child).

    python benchmarks/static_compile.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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
from tests.kernelfiles import materialize
from tools.builds import BuildsTool
from tools.resources import ResourcesTool

CASES = [
    ROOT / "examples" / "softmax_triton",
    ROOT / "examples" / "gpumode_vectoradd",
    ROOT / "tests" / "kernels" / "resources_rows" / "good_wide_rows.py",
    ROOT / "tests" / "kernels" / "resources_rows" / "spills_one_warp.py",
    ROOT / "tests" / "kernels" / "resources_matmul" / "good_tiles.py",
    ROOT / "tests" / "kernels" / "resources_matmul" / "smem_over_limit.py",
    ROOT / "tests" / "kernels" / "resources_cuda" / "good_load_inline.py",
]


def _label(target: object) -> str:
    return f"sm_{target['arch']}" if isinstance(target, dict) else str(target)


def run_one(path: Path, tmp: Path) -> dict:
    root = materialize(path, tmp / path.stem) if path.is_file() else path
    config = ReviewConfig(runs_dir=tmp / "runs", seed=1, signoff=False)
    sub = load_submission(root)
    run_dir = tmp / f"run-{path.stem}"
    ctx = make_tool_context(sub, config, run_dir, 1, detect_device("auto"))
    try:
        BuildsTool().run(ctx)
        t0 = time.perf_counter()
        ResourcesTool().run(ctx)
        wall = time.perf_counter() - t0
    finally:
        ctx.session.close()
    items = [{"summary": e.summary[:110], "outcome": e.outcome, "seconds": round(e.duration_s, 2),
              "target": _label(e.config.get("target"))}
             for e in ctx.evidence if e.tool == "resources" and e.duration_s]
    return {"submission": str(path.relative_to(ROOT)), "tool_wall_s": round(wall, 2), "items": items}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="kreview-bench-"))
    results = []
    try:
        for path in CASES:
            r = run_one(path, tmp)
            results.append(r)
            print(f"{r['submission']}: resources tool {r['tool_wall_s']} s wall")
            for it in r["items"]:
                print(f"   {it['seconds']:6.2f} s  {it['target']}  [{it['outcome']}] {it['summary']}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    per_item = [it["seconds"] for r in results for it in r["items"]]
    summary = {"cpus": os.cpu_count(), "items": len(per_item), "median_s": round(statistics.median(per_item), 2),
               "max_s": round(max(per_item), 2), "target_s": 10.0, "results": results}
    print(f"\nper kernel per target: median {summary['median_s']} s, max {summary['max_s']} s "
          f"over {len(per_item)} compiles (target <= 10 s); {os.cpu_count()} CPUs")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
