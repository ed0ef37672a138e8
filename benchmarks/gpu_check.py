"""One-shot GPU check of the benchmark methodology, for a session that has a CUDA device (H200).

For each bundled example and a bandwidth-bound kernel (a Triton copy-scale over 32M fp32 values,
256 MB of traffic, ~55 us on an H200) it measures the submission three ways and compares them:

1. the reviewer: builds + roofline + benchmark tools (CUDA events, L2 flush, fresh inputs, adaptive
   stopping) -> median, CV, IQR, speedup vs eager/torch.compile, floor check;
2. ``triton.testing.do_bench`` (return_mode="median") on the same callable, in this process;
3. ``ncu`` (when installed): gpu__time_duration.sum of the kernels inside an NVTX range.

It then runs the GPU-marked tests. Everything goes to stdout and to ``--out`` (default: $OUT or
./gpu_check_out) as gpu_check.json. Targets (issue 9): within 3 % of ncu; CV <= 1 % for kernels of
20 us or more. Needs a CUDA build of torch, triton and this package (``pip install -e .``).

    python benchmarks/gpu_check.py [--out DIR] [--max-time 3] [--skip-tests]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BANDWIDTH_REFERENCE = '''"""Copy-scale over 32M fp32 values: 128 MB read + 128 MB written, no FLOPs counted."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 2.0


N = 32 * 1024 * 1024


def get_inputs():
    return [torch.randn(N)]


def get_init_inputs():
    return []
'''

BANDWIDTH_SUBMISSION = '''"""Triton copy-scale: one 4096-wide block per program, 8 warps."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        scale_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
        return y
'''

NCU_CHILD = '''
import sys, torch
sys.path.insert(0, {root!r})
from benchmarks.gpu_check import prepared_call
call, inputs = prepared_call({sub!r})
for _ in range(3):
    call(inputs)
torch.cuda.synchronize()
for _ in range(10):
    torch.cuda.nvtx.range_push("kreview_timed")
    call(inputs)
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
'''


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def prepared_call(path: str, device: str = "cuda") -> tuple[Any, Any]:
    """The submission's callable and one input set on the GPU, built the reviewer's way (trusted
    bundled code only: this runs in-process)."""
    import torch

    import tools.engine.harness.ops  # noqa: F401 - registers the submission formats
    from reviewer.ingest import load_submission
    from tools.benchmark.child import timed_callable
    from tools.engine.harness import programs, tensors
    from tools.engine.harness.case import Case
    from tools.engine.harness.programs import CaseData

    sub = load_submission(path)
    spec = sub.child_spec(Path(path))
    ref = programs.REFERENCES[sub.format](spec, device)
    prog = programs.SUBMISSIONS[sub.format](spec, device)
    nc = sub.nominal_cases[0]
    case = Case(id="gpu-check", seed=nc.seed or 1234, params=dict(nc.params), dtype=sub.dtype)
    data = ref.make_case(case)
    inputs = tensors.move(data.inputs, device)
    call, _ = timed_callable(prog, case, CaseData(init=data.init, inputs=inputs), device, "eager")
    if device == "cuda":
        torch.cuda.synchronize()
    return call, inputs


def reviewer_figures(path: Path, max_time: float, runs: Path) -> dict[str, Any]:
    import tools.benchmark as bench
    from reviewer.core.config import ReviewConfig
    from reviewer.device import detect_device
    from reviewer.graph.context import make_tool_context
    from reviewer.ingest import load_submission
    from tools.builds import BuildsTool
    from tools.roofline import RooflineTool

    bench.STOP = bench.STOP.model_copy(update={"max_time_s": max_time})
    sub = load_submission(path)
    ctx = make_tool_context(sub, ReviewConfig(runs_dir=runs, seed=7, signoff=False), runs / path.name, 7,
                            detect_device("cuda"))
    try:
        t0 = time.perf_counter()
        for tool in (BuildsTool(), RooflineTool(), bench.BenchmarkTool()):
            tool.run(ctx)
        wall = time.perf_counter() - t0
    finally:
        ctx.session.close()
    out: dict[str, Any] = {"wall_s": round(wall, 1), "evidence": [(e.id, e.outcome, e.summary) for e in ctx.evidence]}
    for e in ctx.evidence:
        if e.check == "benchmark statistics":
            out["summaries"] = e.result["summaries"]
            out["host_minus_event_median_s"] = e.result["host_minus_event_median_s"]
            out["stop"] = e.result["stop"]
        if e.tool == "benchmark" and e.result.get("ci95"):
            out["speedup"], out["ci95"] = e.result["speedup"], e.result["ci95"]
        if e.tool == "benchmark" and "kernels" in e.result:
            out["ncu_in_reviewer"] = e.result["kernels"]
        if e.tool == "roofline" and e.check == "time vs speed-of-light floor":
            out["floor"] = {"outcome": e.outcome, "floor_s": e.result["floor_s"]}
    return out


def do_bench_median(path: Path) -> float:
    import triton.testing

    call, inputs = prepared_call(str(path))
    return float(triton.testing.do_bench(lambda: call(inputs), return_mode="median")) * 1e-3


def ncu_median(path: Path, folder: Path) -> dict[str, Any]:
    from tools.benchmark import ncu

    tool = ncu.find_ncu()
    if tool is None:
        return {"error": "ncu not installed"}
    script = folder / f"ncu_child_{path.name}.py"
    script.write_text(NCU_CHILD.format(root=str(ROOT), sub=str(path)))
    logf = folder / f"ncu_{path.name}.csv"
    cmd = [tool, "--nvtx", "--nvtx-include", "kreview_timed/", "--csv", "--log-file", str(logf), "--force-overwrite",
           "--metrics", ",".join(ncu.METRICS), sys.executable, str(script)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    if not logf.exists():
        return {"error": f"ncu exit {run.returncode}: {(run.stderr or run.stdout)[-800:]}"}
    kernels = ncu.parse_csv(logf.read_text(errors="replace"))
    if not kernels:
        return {"error": "no kernels in the ncu report", "stderr": run.stderr[-800:]}
    # per call: the kernels inside one NVTX range, each at its median duration
    return {"per_call_s": sum(m.get("duration", 0.0) for m in kernels.values()), "kernels": kernels}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "gpu_check_out")))
    ap.add_argument("--max-time", type=float, default=3.0, help="benchmark time cap per role (s)")
    ap.add_argument("--skip-tests", action="store_true")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    import torch
    import triton

    report: dict[str, Any] = {"torch": torch.__version__, "triton": triton.__version__,
                              "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0)
                              if torch.cuda.is_available() else None, "results": {}}
    log(f"device {report['device']}, torch {report['torch']}, triton {report['triton']}")
    if not torch.cuda.is_available():
        log("no CUDA device: nothing to check")
        (args.out / "gpu_check.json").write_text(json.dumps(report, indent=2))
        return
    tmp = Path(tempfile.mkdtemp(prefix="kreview-gpu-check-"))
    bw = tmp / "bandwidth_copy_scale"
    bw.mkdir()
    (bw / "reference.py").write_text(BANDWIDTH_REFERENCE)
    (bw / "submission.py").write_text(BANDWIDTH_SUBMISSION)
    subjects = [ROOT / "examples" / "softmax_triton", ROOT / "examples" / "gpumode_vectoradd",
                ROOT / "examples" / "gelu_triton_buggy", bw]
    for path in subjects:
        name = path.name
        res: dict[str, Any] = {}
        for label, fn in (("reviewer", lambda p=path: reviewer_figures(p, args.max_time, tmp / "runs")),
                          ("do_bench_median_s", lambda p=path: do_bench_median(p)),
                          ("ncu", lambda p=path: ncu_median(p, tmp))):
            t0 = time.perf_counter()
            try:
                res[label] = fn()
            except Exception as exc:  # noqa: BLE001 - a failed step is reported, the script goes on
                res[label] = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-2000:]}
            log(f"{name}: {label} done in {time.perf_counter() - t0:.1f}s")
        rev = res.get("reviewer", {}).get("summaries", {}).get("submission/eager")
        if rev:
            med = rev["median"]
            res["reviewer_median_s"], res["reviewer_cv"] = med, rev["cv"]
            if isinstance(res.get("do_bench_median_s"), float):
                res["vs_do_bench"] = med / res["do_bench_median_s"] - 1
            per_call = res.get("ncu", {}).get("per_call_s") if isinstance(res.get("ncu"), dict) else None
            if per_call:
                res["vs_ncu"] = med / per_call - 1
        report["results"][name] = res
        log(f"{name}: reviewer median {res.get('reviewer_median_s')} s, CV {res.get('reviewer_cv')}, "
            f"do_bench {res.get('do_bench_median_s')}, vs ncu {res.get('vs_ncu')}")
        (args.out / "gpu_check.json").write_text(json.dumps(report, indent=2, default=str))
    if not args.skip_tests:
        t0 = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "pytest", "-m", "gpu", "-q", "-x", "tests"], cwd=ROOT,
                             capture_output=True, text=True, timeout=420, check=False)
        report["gpu_tests"] = {"returncode": run.returncode, "tail": run.stdout[-3000:] + run.stderr[-1000:],
                               "seconds": round(time.perf_counter() - t0, 1)}
        log(f"GPU tests: exit {run.returncode}")
    (args.out / "gpu_check.json").write_text(json.dumps(report, indent=2, default=str))
    print("\n| subject | reviewer median (us) | CV | do_bench (us) | vs do_bench | vs ncu |")
    print("|---|---|---|---|---|---|")
    for name, r in report["results"].items():
        med = r.get("reviewer_median_s")
        db = r.get("do_bench_median_s") if isinstance(r.get("do_bench_median_s"), float) else None
        print(f"| {name} | {med * 1e6 if med else '-':.4} | {r.get('reviewer_cv', float('nan')):.2%} | "
              f"{db * 1e6 if db else float('nan'):.4} | {r.get('vs_do_bench', float('nan')):+.1%} | "
              f"{r.get('vs_ncu', float('nan')):+.1%} |" if med else f"| {name} | failed | | | | |")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
