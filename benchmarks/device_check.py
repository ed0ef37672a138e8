"""The one-shot device check (issue 27): what a user with a GPU gets, measured in one go.

On a machine with an NVIDIA GPU (one H200 here), from the repository root, after installing the
project (``bash benchmarks/device_check.sh`` does both):

    python benchmarks/device_check.py [--out DIR] [--budget-s 420] [--jobs 4]

1. the environment: GPU, driver libraries, device nodes, tool versions, bubblewrap;
2. a bare sandbox child (the reviewer's own bubblewrap command line with the GPU bound) that
   initialises CUDA, launches a compiled Triton kernel and reports what it sees;
3. full sandboxed CLI reviews (``kreview review --no-signoff --format json``, every tool) of the
   bundled Triton, CUDA, GPU MODE and Pallas examples, ``--jobs`` at a time, each checked against the
   ``Expect:`` line of its submission;
   and of a bandwidth-bound Triton kernel (copy-scale over 32M fp32 values);
4. alone on the GPU, that kernel timed by the reviewer's benchmark tool (its own sandboxed children),
   by ``triton.testing.do_bench`` and by ``ncu``: the reviewer's median beside theirs.

Everything goes to ``DIR/device_check.json`` (rewritten after each step, so a run cut short still
leaves what it measured) and a summary table to stdout. Nothing here runs submission code outside
the sandbox except step 4's do_bench/ncu of the bundled bandwidth kernel, which is our own code.
"""

from __future__ import annotations

import argparse
import concurrent.futures as futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ("softmax_triton", "gelu_triton_buggy", "fused_softmax_tutorial", "gpumode_vectoradd",
            "scaled_add_cuda", "scaled_add_cuda_buggy", "rowsum_pallas", "rowsum_pallas_buggy")
T0 = time.monotonic()


def log(msg: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f}s] {msg}", flush=True)


def sh(cmd: str, timeout: float = 30) -> str:
    try:
        run = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=timeout, check=False)  # noqa: S602
        return (run.stdout + run.stderr).strip()[-3000:]
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout}s"


def environment() -> dict[str, Any]:
    import torch
    import triton

    out: dict[str, Any] = {
        "python": sys.version.split()[0], "torch": torch.__version__, "torch_cuda": torch.version.cuda,
        "triton": triton.__version__, "cuda_available": torch.cuda.is_available(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "nvidia_smi": sh("nvidia-smi -L"), "dev_nodes": sh("ls /dev | grep -E '^(nvidia|dri)'"),
        "libcuda": sh("ldconfig -p | grep -E 'libcuda\\.so|libnvidia-ml\\.so'"),
        "ld_library_path": os.environ.get("LD_LIBRARY_PATH", ""),
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "tools": {t: shutil.which(t) for t in ("bwrap", "nvcc", "ncu", "compute-sanitizer", "nvidia-smi")},
        "bwrap_version": sh("bwrap --version"),
        "ncu_version": sh("ncu --version | tail -1"),
    }
    try:
        import jax

        out["jax"] = jax.__version__
    except Exception as exc:  # noqa: BLE001 - reported, not needed
        out["jax"] = f"not importable: {exc}"
    return out


SANDBOX_PROBE = r'''
import json, os, sys, time
t0 = time.time()
out = {"visible": os.environ.get("CUDA_VISIBLE_DEVICES"), "dev": sorted(os.listdir("/dev"))}
try:
    import torch
    out["cuda"] = torch.cuda.is_available()
    out["count"] = torch.cuda.device_count()
    out["name"] = torch.cuda.get_device_name(0) if out["cuda"] else None
    import triton, triton.language as tl

    @triton.jit
    def k(x, y, n, B: tl.constexpr):
        o = tl.program_id(0) * B + tl.arange(0, B)
        tl.store(y + o, tl.load(x + o, mask=o < n) * 2, mask=o < n)

    x = torch.arange(1000, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    k[(4,)](x, y, 1000, B=256)
    torch.cuda.synchronize()
    out["triton_ok"] = bool(torch.equal(y, x * 2))
except Exception as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"
out["seconds"] = round(time.time() - t0, 2)
print("PROBE " + json.dumps(out))
'''


def sandbox_probe(work: Path, access: Any) -> dict[str, Any]:
    """The reviewer's bubblewrap command line with the GPU bound (``access``), running CUDA and a Triton launch."""
    import tools.engine.sandbox.bwrap as bwrap
    from tools.engine.sandbox.env import scrubbed_env
    from tools.engine.sandbox.gpu import child_env
    from tools.engine.sandbox.seccomp_filter import filter_fd

    work.mkdir(parents=True, exist_ok=True)
    script = work / "probe.py"
    script.write_text(SANDBOX_PROBE)
    fd = filter_fd()
    try:
        cmd = bwrap.command(writable=[work], chdir=work, etc_dir=bwrap.passwd_file(work / ".etc"), seccomp_fd=fd,
                            gpu=access)
        env = scrubbed_env(work, threads=2, extra=child_env(work, access))
        run = subprocess.run([*cmd, sys.executable, "-I", str(script)], capture_output=True, text=True,
                             timeout=180, env=env, pass_fds=(fd,), check=False)
    finally:
        os.close(fd)
    line = next((ln for ln in run.stdout.splitlines() if ln.startswith("PROBE ")), None)
    res: dict[str, Any] = json.loads(line[6:]) if line else {}
    res["returncode"] = run.returncode
    res["access"] = access.describe()
    if not line or res.get("error"):
        res["stderr"] = run.stderr[-2000:]
    return res


def sandbox_probes(work: Path) -> dict[str, Any]:
    """The child as the reviewer starts it; if it cannot use the GPU, again with all of /sys (which
    part of the machine it lacked)."""
    import dataclasses

    from reviewer.device import detect_device
    from tools.engine.sandbox.gpu import for_device

    device = detect_device("cuda")
    access = for_device(device)
    out = {"device": dataclasses.asdict(device), "reviewer": sandbox_probe(work / "a", access)}
    if not out["reviewer"].get("triton_ok"):
        out["wide_sys"] = sandbox_probe(work / "b", dataclasses.replace(access, sys_paths=("/sys",)))
    return out


def expectations(path: Path, on_gpu: bool) -> dict[str, str]:
    sub = path / "submission.py"
    if not sub.exists():
        return {}
    found: dict[str, str] = {}
    for line in sub.read_text().splitlines():
        m = re.match(r"\s*Expect( on CPU)?:\s*(.*)", line)
        if m and bool(m.group(1)) != on_gpu:
            found.update(dict(kv.split("=", 1) for kv in m.group(2).split(",") if "=" in kv))
            found = {k.strip(): v.strip() for k, v in found.items()}
    return found


def review(path: Path, runs: Path, timeout: float, extra: list[str] | None = None) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "reviewer", "review", str(path), "--no-signoff", "--format", "json", "--seed", "0",
           "--runs-dir", str(runs), *(extra or [])]
    t0 = time.monotonic()
    try:
        # from the runs folder: ``-m reviewer`` imports the installed project, not this checkout
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False, cwd=runs.parent)
    except subprocess.TimeoutExpired as exc:
        return {"error": f"timed out after {timeout}s", "stderr": str(exc.stderr or "")[-3000:]}
    wall = round(time.monotonic() - t0, 1)
    try:
        rev = json.loads(run.stdout)
    except json.JSONDecodeError:
        return {"returncode": run.returncode, "wall_s": wall, "error": "no JSON on stdout",
                "stdout": run.stdout[-1500:], "stderr": run.stderr[-3000:]}
    crit = {c["id"]: c["verdict"] for c in rev["criteria"]}
    notable = [{"id": e["id"], "outcome": e["outcome"], "summary": e["summary"][:400], "reason": (e.get("reason") or "")[:300],
                "device": (e.get("config") or {}).get("device"),
                "result": json.dumps(e.get("result") or {}, default=str)[:1500]}
               for e in rev["evidence"] if e["outcome"] in ("fail", "unverified")
               or (e["tool"] in ("benchmark", "sanitizers") and e["outcome"] == "info")]
    devices = sorted({str((e.get("config") or {}).get("device")) for e in rev["evidence"]})
    bench = [e for e in rev["evidence"] if e["tool"] == "benchmark"]
    return {"returncode": run.returncode, "wall_s": wall, "overall": rev["overall"],
            "overall_reason": rev.get("overall_reason", "")[:400], "criteria": crit, "timings": rev.get("timings", {}),
            "devices": devices, "not_passed": notable[:40],
            "benchmark": [{"id": e["id"], "outcome": e["outcome"], "summary": e["summary"][:500],
                           "result": {k: e["result"].get(k) for k in ("summaries", "speedup", "ci95", "kernels", "stop")
                                      if k in e["result"]}} for e in bench],
            "stderr_tail": run.stderr[-1500:]}


def judge(res: dict[str, Any], expect: dict[str, str]) -> list[str]:
    got = dict(res.get("criteria", {}))
    got["overall"] = res.get("overall", "?")
    return [f"{k}: expected {v}, got {got.get(k)}" for k, v in expect.items() if got.get(k) != v]


def bandwidth_subject(folder: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    from benchmarks.gpu_check import BANDWIDTH_REFERENCE, BANDWIDTH_SUBMISSION

    bw = folder / "bandwidth_copy_scale"
    bw.mkdir(parents=True, exist_ok=True)
    (bw / "reference.py").write_text(BANDWIDTH_REFERENCE)
    (bw / "submission.py").write_text(BANDWIDTH_SUBMISSION + '\n"""\nExpect: builds=pass, correctness=pass, '
                                      'overall=accept\n"""\n')
    return bw


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "device_check_out")))
    ap.add_argument("--budget-s", type=float, default=420.0, help="stop starting new work after this")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--examples", default=",".join(EXAMPLES))
    ap.add_argument("--review-timeout", type=float, default=300.0)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"started": time.strftime("%Y-%m-%d %H:%M:%S")}
    dump = lambda: (args.out / "device_check.json").write_text(json.dumps(report, indent=2, default=str))  # noqa: E731
    report["environment"] = environment()
    log(f"environment: {report['environment']['gpu']}, torch {report['environment']['torch']}, "
        f"triton {report['environment']['triton']}")
    dump()
    work = Path(tempfile.mkdtemp(prefix="kreview-device-"))
    t0 = time.monotonic()
    try:
        report["sandbox_probe"] = sandbox_probes(work / "probe")
    except Exception as exc:  # noqa: BLE001 - a failed step is reported, the script goes on
        report["sandbox_probe"] = {"error": f"{type(exc).__name__}: {exc}"}
    report["sandbox_probe"]["wall_s"] = round(time.monotonic() - t0, 1)
    log(f"sandbox probe: {report['sandbox_probe']}")
    dump()
    on_gpu = bool(report["environment"]["cuda_available"])
    runs = work / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    reviews: dict[str, Any] = {}
    report["reviews"] = reviews
    paths = [ROOT / "examples" / n for n in args.examples.split(",") if n] + [bandwidth_subject(work)]
    with futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        todo = {pool.submit(review, p, runs, args.review_timeout): p for p in paths}
        for fut in futures.as_completed(todo):
            path = todo[fut]
            name = path.name
            res = fut.result()
            res["expected"] = expectations(path, on_gpu)
            res["mismatches"] = judge(res, res["expected"])
            reviews[name] = res
            log(f"{name}: {res.get('overall', res.get('error'))} in {res.get('wall_s')}s "
                f"{res.get('criteria')} mismatches={res['mismatches']}")
            dump()
    if time.monotonic() - T0 < args.budget_s:
        # alone on the GPU: the benchmark tool's own sandboxed children (builds, roofline, benchmark),
        # then do_bench and ncu on the same kernel
        bw = bandwidth_subject(work)
        timing: dict[str, Any] = {}
        sys.path.insert(0, str(ROOT))
        from benchmarks.gpu_check import do_bench_median, ncu_median, reviewer_figures

        for label, fn in (("reviewer", lambda: reviewer_figures(bw, 3.0, work / "timing-runs")),
                          ("do_bench_median_s", lambda: do_bench_median(bw)), ("ncu", lambda: ncu_median(bw, work))):
            try:
                timing[label] = fn()
            except Exception as exc:  # noqa: BLE001 - a failed step is reported, the script goes on
                timing[label] = {"error": f"{type(exc).__name__}: {exc}"}
        rev = (timing.get("reviewer") or {}).get("summaries", {}).get("submission/eager") if isinstance(
            timing.get("reviewer"), dict) else None
        if rev:
            timing["reviewer_median_s"], timing["reviewer_cv"] = rev["median"], rev["cv"]
        med, per_call = timing.get("reviewer_median_s"), (timing.get("ncu") or {}).get("per_call_s")
        if med and per_call:
            timing["reviewer_vs_ncu"] = med / per_call - 1
        if med and isinstance(timing.get("do_bench_median_s"), float):
            timing["reviewer_vs_do_bench"] = med / timing["do_bench_median_s"] - 1
        report["timing"] = timing
        log(f"timing: median {timing.get('reviewer_median_s')} s (CV {timing.get('reviewer_cv')}), "
            f"do_bench {timing.get('do_bench_median_s')}, ncu {(timing.get('ncu') or {}).get('per_call_s')}, "
            f"vs ncu {timing.get('reviewer_vs_ncu')}")
    # the children's logs of every review (why a wrapper did not start, what compute-sanitizer said)
    try:
        import tarfile

        with tarfile.open(args.out / "run_logs.tar.gz", "w:gz") as tar:
            for f in sorted(runs.rglob("*.log")):
                if f.stat().st_size < 4 * 2**20:
                    tar.add(f, arcname=str(f.relative_to(runs)))
    except Exception as exc:  # noqa: BLE001
        report["logs_error"] = str(exc)
    report["wall_s"] = round(time.monotonic() - T0, 1)
    dump()
    print("\n| subject | overall | wall s | mismatches |\n|---|---|---|---|")
    for name, r in reviews.items():
        print(f"| {name} | {r.get('overall', r.get('error'))} | {r.get('wall_s')} | {'; '.join(r.get('mismatches', []))} |")
    shutil.rmtree(work, ignore_errors=True)
    return 0 if all(not r.get("mismatches") for r in reviews.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
