"""One-shot GPU check: the full review of both bundled CUDA examples, compute-sanitizer included.

Run on a machine with an NVIDIA GPU, a CUDA build of torch, nvcc and (for the sanitizer evidence)
compute-sanitizer, from the repository root:

    python benchmarks/cuda_gpu_check.py [--out DIR] [--only-tools builds,correctness,lowering,sanitizers]

Prints the environment, then per example the overall verdict, every criterion's verdict, the
sanitizer evidence, the time per tool and whether the verdicts match the example's ``Expect:`` line.
Writes ``cuda_gpu_check.json`` (and the run directories) under --out. Exit 0 when every example got
its expected verdicts. Works without ``pip install`` of this project: if the entry points are not
installed, tools and backends are registered from pyproject.toml.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import sys
import time
import tomllib
import traceback
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
EXAMPLES = ("scaled_add_cuda", "scaled_add_cuda_buggy")


def _register_from_pyproject() -> None:
    """Fill the registry from pyproject.toml when this checkout is not pip-installed."""
    import tools.engine.registry as registry
    from reviewer.core.errors import ToolError

    try:
        registry.tools()
        return
    except ToolError:
        pass
    eps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]

    def load(spec: str):
        module, attr = spec.split(":")
        return getattr(importlib.import_module(module), attr)

    tool_table = {name: load(spec) for name, spec in eps["kreview.tools"].items()}
    backend_table = {name: load(spec)() for name, spec in eps["kreview.backends"].items()}
    registry.tools = lambda: tool_table  # type: ignore[assignment]
    registry.backends = lambda: backend_table  # type: ignore[assignment]
    print("registered tools and backends from pyproject.toml (project not pip-installed)")


def _environment() -> dict[str, object]:
    import torch

    from tools.engine.backends.cuda import find_compute_sanitizer, find_nvcc

    env: dict[str, object] = {"python": sys.version.split()[0], "torch": torch.__version__,
                              "torch_cuda": torch.version.cuda, "cuda_available": torch.cuda.is_available(),
                              "nvcc": find_nvcc(), "compute_sanitizer": find_compute_sanitizer(),
                              "CUDA_HOME": os.environ.get("CUDA_HOME")}
    if torch.cuda.is_available():
        env["device"] = torch.cuda.get_device_name(0)
        env["capability"] = list(torch.cuda.get_device_capability(0))
    return env


def _expected(path: Path) -> dict[str, str]:
    for line in path.read_text().splitlines()[:40]:
        if line.strip().startswith("Expect:"):
            return dict(p.strip().split("=", 1) for p in line.split(":", 1)[1].split(",") if p.strip())
    return {}


def review_one(name: str, out: Path, only: list[str] | None) -> dict[str, object]:
    from reviewer.api import start_review
    from reviewer.core.config import ReviewConfig
    from reviewer.core.limits import SandboxLimits

    # Rationale: load_inline compiles the extension inside the first call (about a minute), and the
    # sanitizers slow the child down; generous limits keep slowness from reading as a hang.
    limits = SandboxLimits(startup_timeout_s=600.0, call_timeout_s=300.0)
    config = ReviewConfig(runs_dir=out / "runs", seed=1234, signoff=False, limits=limits, device="cuda",
                          only=only)
    t0 = time.perf_counter()
    review = start_review(ROOT / "examples" / name, config)
    wall = time.perf_counter() - t0
    per_tool: dict[str, float] = defaultdict(float)
    for e in review.evidence:
        per_tool[e.tool] += e.duration_s
    want = _expected(ROOT / "examples" / name / "submission.py")
    got = {c.id: c.verdict for c in review.criteria} | {"overall": review.overall}
    return {
        "example": name, "wall_s": round(wall, 1), "overall": review.overall, "reason": review.overall_reason,
        "criteria": {c.id: c.verdict for c in review.criteria},
        "expected": want, "matches": all(got.get(k) == v for k, v in want.items()),
        "tool_seconds": {k: round(v, 1) for k, v in sorted(per_tool.items(), key=lambda kv: -kv[1])},
        "sanitizers": [{"id": e.id, "check": e.check, "outcome": e.outcome, "defect": e.defect,
                        "summary": e.summary, "seconds": round(e.duration_s, 1)}
                       for e in review.evidence if e.tool == "sanitizers"],
        "failing": [f"{e.id} {e.summary}" for e in review.evidence if e.outcome in ("fail", "unverified")][:20],
        "run_dir": review.run_dir,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "cuda-gpu-check")))
    parser.add_argument("--only-tools", default="", help="comma-separated tool names (default: all)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    _register_from_pyproject()
    env = _environment()
    print("environment:", json.dumps(env))
    if not env["cuda_available"]:
        print("no CUDA device visible to torch: nothing to check here")
        return 2
    only = [t for t in args.only_tools.split(",") if t] or None
    results = []
    for name in EXAMPLES:
        try:
            res = review_one(name, args.out, only)
        except Exception:  # noqa: BLE001 - report and go on to the next example
            res = {"example": name, "error": traceback.format_exc()[-3000:], "matches": False}
        results.append(res)
        print(f"\n== {name}")
        if "error" in res:
            print(res["error"])
            continue
        print(f"overall={res['overall']} ({res['reason']}) in {res['wall_s']}s; "
              f"expected {res['expected']} -> {'MATCH' if res['matches'] else 'MISMATCH'}")
        print("criteria:", " ".join(f"{k}={v}" for k, v in res["criteria"].items()))
        print("seconds per tool:", res["tool_seconds"])
        for s in res["sanitizers"]:
            print(f"  {s['id']} {s['outcome']:<10} {s['defect'] or '':<32} {s['seconds']:>6}s  {s['summary'][:160]}")
        for line in res["failing"]:
            print("  !", line[:220])
    (args.out / "cuda_gpu_check.json").write_text(json.dumps({"environment": env, "results": results}, indent=2))
    if shutil.which("nvidia-smi"):
        os.system("nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv")
    ok = all(r.get("matches") for r in results)
    print(f"\n{'ALL EXPECTED VERDICTS' if ok else 'SOME VERDICTS DIFFER'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
