"""Where a review's time goes, and reviews per hour with the local and the Ray executor.

    python benchmarks/batch_throughput.py [--cases N] [--set eval_sets/planted] [--executors local1,local2,ray]
                                          [--json OUT.json]

Part 1 (breakdown): the cases are reviewed one after another in this process (as ``--workers 1``
does) with the sandbox worker's ``start``/``call`` timed from the parent: how many sandbox children a
review starts and how long their start-up takes (interpreter, preludes, torch and harness imports),
the time the parent waits on calls, and, inside those calls, the seconds the child itself reports
spending in the submission and reference calls (``run_seconds`` of ``run_submission`` and
``reference_case``). The **overhead fraction** is (review wall time - time inside submission and
reference calls) / review wall time. The first review in a fresh process also pays the reviewer's own
imports; that is reported separately (``first_review_extra_s``).

Part 2 (throughput): the same cases through ``kreview batch``'s runner, fresh store per executor:
``local1`` (in-process), ``local2`` (two worker processes), ``ray`` (a local Ray cluster with the
machine's CPUs, one CPU per review). Reviews/hour = cases / wall seconds of the batch (Ray start-up
reported apart). The machine is shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_CASES = ["relu_ok", "softmax_ok", "softmax_no_max_subtraction", "vector_add_ok", "gelu_tanh_ok",
                 "hardtanh_grid_floor", "layer_norm_tutorial_ok", "sum_dim_ok"]


class Meter:
    """Parent-side timing of every sandbox child start and call (patched onto SandboxWorker)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.starts = 0
        self.start_s = 0.0
        self.calls = 0
        self.call_s = 0.0
        self.inside_s = 0.0  # child-reported time in the submission / reference calls themselves
        self.by_op: dict[str, float] = {}
        self.child_cpu_s = 0.0  # CPU seconds of the sandbox children killed (read from /proc before the kill)
        self._seen: set[int] = set()

    def sample(self, proc) -> None:  # noqa: ANN001 - a subprocess.Popen
        """Add the CPU time (their own and that of the processes they reaped) of every process below the
        launched one, just before it is killed: a killed sandbox's processes are reaped by no process of
        ours, so ``os.times`` never sees them. Found by parent pid, not process group: bubblewrap's
        ``--new-session`` gives the sandboxed processes a group of their own. The launched process itself
        is left out: this process reaps it, so ``os.times`` counts it (and a tree that ended on its own)."""
        if proc is None or proc.pid in self._seen:
            return
        self._seen.add(proc.pid)
        tick = os.sysconf("SC_CLK_TCK")
        parent: dict[int, int] = {}
        cpu: dict[int, int] = {}
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parent[int(d.name)] = int(fields[1])
            cpu[int(d.name)] = sum(int(x) for x in fields[11:15])
        below = {proc.pid}
        grew = True
        while grew:
            more = {pid for pid, ppid in parent.items() if ppid in below and pid not in below}
            below |= more
            grew = bool(more)
        self.child_cpu_s += sum(cpu.get(pid, 0) for pid in below - {proc.pid}) / tick

    def install(self) -> None:
        from tools.engine.sandbox.worker import SandboxWorker

        meter = self
        call = SandboxWorker.call
        # a child's start: ``launch`` then ``wait_ready`` where the worker has them (children started
        # early, the parent waits only for what is not ready yet), else ``start`` (before that split)
        split = hasattr(SandboxWorker, "wait_ready")
        start = SandboxWorker.wait_ready if split else SandboxWorker.start
        launch = getattr(SandboxWorker, "launch", None)

        def timed_start(self):  # noqa: ANN001, ANN202
            t0 = time.perf_counter()
            try:
                return start(self)
            finally:
                meter.start_s += time.perf_counter() - t0
                if not split:
                    meter.starts += 1

        def counted_launch(self):  # noqa: ANN001, ANN202
            meter.starts += 1
            return launch(self)

        def timed_call(self, op, payload=None, timeout=None):  # noqa: ANN001, ANN202
            t0 = time.perf_counter()
            res = call(self, op, payload, timeout)
            dt = time.perf_counter() - t0
            meter.calls += 1
            meter.call_s += dt
            meter.by_op[op] = meter.by_op.get(op, 0.0) + dt
            if res.ok and isinstance(res.result, dict) and op in ("run_submission", "reference_case"):
                meter.inside_s += float(res.result.get("run_seconds", 0.0))
            return res

        kill = SandboxWorker._kill

        def sampled_kill(self):  # noqa: ANN001, ANN202 - every kill: close, a timeout, an OOM, a failed start
            meter.sample(self.proc)
            return kill(self)

        SandboxWorker.call = timed_call
        if split:
            SandboxWorker.wait_ready, SandboxWorker.launch = timed_start, counted_launch
        else:
            SandboxWorker.start = timed_start
        SandboxWorker._kill = sampled_kill


def breakdown(paths: list[Path], tmp: Path, only: list[str] | None) -> dict:
    t_imp = time.perf_counter()
    from reviewer.api import start_review
    from reviewer.core.config import ReviewConfig

    import_s = time.perf_counter() - t_imp
    meter = Meter()
    meter.install()
    rows = []
    for p in paths:
        meter.reset()
        config = ReviewConfig(seed=0, signoff=False, runs_dir=tmp / "runs-breakdown", only=only)
        t0, c0 = time.perf_counter(), os.times()
        review = start_review(p, config)
        wall, c1 = time.perf_counter() - t0, os.times()
        # CPU seconds of this process, of what it reaped (tools such as ptxas, children that ended on their own)
        # and of the sandbox children it killed (``Meter.sample``)
        cpu = (c1.user - c0.user) + (c1.system - c0.system) + (c1.children_user - c0.children_user) + (
            c1.children_system - c0.children_system) + meter.child_cpu_s
        rows.append({"case": p.name, "overall": review.overall, "wall_s": wall, "child_starts": meter.starts,
                     "child_start_s": meter.start_s, "calls": meter.calls, "call_wait_s": meter.call_s,
                     "inside_calls_s": meter.inside_s, "tools_s": review.timings, "cpu_s": cpu,
                     "call_wait_by_op_s": dict(meter.by_op),
                     "overhead_fraction": (wall - meter.inside_s) / wall})
        print(f"  {p.name:34s} {wall:6.1f}s  {meter.starts:2d} child starts {meter.start_s:5.1f}s  "
              f"calls {meter.call_s:5.1f}s  inside {meter.inside_s:5.2f}s  overhead "
              f"{rows[-1]['overhead_fraction']:.1%}  cpu {cpu:5.1f}s", flush=True)
    walls = [r["wall_s"] for r in rows]
    later = walls[1:] or walls
    total = sum(walls)
    return {"reviewer_import_s": import_s, "reviews": rows, "total_wall_s": total,
            "first_review_extra_s": walls[0] - statistics.median(later),
            "child_starts_per_review": statistics.mean(r["child_starts"] for r in rows),
            "child_start_s_per_review": statistics.mean(r["child_start_s"] for r in rows),
            "inside_calls_s_per_review": statistics.mean(r["inside_calls_s"] for r in rows),
            "cpu_s_per_review": statistics.mean(r["cpu_s"] for r in rows),
            "parent_only_s_per_review": statistics.mean(r["wall_s"] - r["call_wait_s"] for r in rows),
            "overhead_fraction": (total - sum(r["inside_calls_s"] for r in rows)) / total,
            "child_start_fraction": sum(r["child_start_s"] for r in rows) / total}


def throughput(kind: str, paths: list[Path], tmp: Path, only: list[str] | None) -> dict:
    from reviewer.batch.executors import LocalExecutor, RayExecutor
    from reviewer.batch.runner import run_batch
    from reviewer.batch.store import BatchStore
    from reviewer.core.config import ReviewConfig

    config = ReviewConfig(seed=0, signoff=False, only=only)
    t0 = time.perf_counter()
    if kind == "ray":
        ex = RayExecutor(None, init_kwargs={"include_dashboard": False})
        gpus = ex.has_gpus()
    else:
        ex, gpus = LocalExecutor(int(kind.removeprefix("local"))), None
    setup = time.perf_counter() - t0
    t1 = time.perf_counter()
    with ex:
        rows = run_batch(paths, BatchStore(tmp / f"store-{kind}"), config, ex, gpus_available=gpus)
    wall = time.perf_counter() - t1
    verdicts = {Path(r.submission).name: (r.overall, r.criteria) for r in rows}
    failures = [r.error for r in rows if r.status != "reviewed"]
    out = {"executor": kind, "cases": len(paths), "setup_s": setup, "wall_s": wall,
           "reviews_per_hour": len(paths) / wall * 3600, "failures": failures, "verdicts": verdicts,
           "load_after": os.getloadavg()}
    print(f"  {kind:7s} {len(paths)} reviews in {wall:6.1f}s (+{setup:4.1f}s start-up): "
          f"{out['reviews_per_hour']:6.0f} reviews/h; load {os.getloadavg()[0]:.1f}"
          + (f"; {len(failures)} failures" if failures else ""), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", type=Path, default=ROOT / "eval_sets" / "planted")
    ap.add_argument("--cases", type=int, default=4)
    ap.add_argument("--paths", type=Path, nargs="+", help="review these submission directories instead of --set's")
    ap.add_argument("--executors", default="local1,local2,ray")
    ap.add_argument("--only", action="append", help="run only this tool (repeatable)")
    ap.add_argument("--no-breakdown", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    names = [n for n in DEFAULT_CASES if (args.set / n).is_dir()] or sorted(
        p.name for p in args.set.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    paths = [(args.set / n).resolve() for n in names[: args.cases]]
    if args.paths:
        paths = [p.resolve() for p in args.paths]
    print(f"{len(paths)} cases from {args.set}; {os.cpu_count()} CPUs; load {os.getloadavg()}", flush=True)
    result: dict = {"cases": [p.name for p in paths], "cpus": os.cpu_count(), "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="kreview-bench-") as tmp_s:
        tmp = Path(tmp_s)
        if not args.no_breakdown:
            print("breakdown (in this process, one review at a time):", flush=True)
            b = breakdown(paths, tmp, args.only)
            result["breakdown"] = b
            print(f"  => overhead fraction {b['overhead_fraction']:.1%}; "
                  f"child start-up {b['child_start_fraction']:.1%} of wall ({b['child_starts_per_review']:.1f} "
                  f"starts, {b['child_start_s_per_review']:.1f}s per review); "
                  f"first review +{b['first_review_extra_s']:.1f}s (reviewer imports); "
                  f"{b['cpu_s_per_review']:.1f} CPU-s per review", flush=True)
        print("throughput:", flush=True)
        runs = [throughput(k, paths, tmp, args.only) for k in args.executors.split(",") if k]
        result["throughput"] = runs
        if len(runs) > 1:
            same = all(r["verdicts"] == runs[0]["verdicts"] for r in runs)
            print(f"  same verdicts on every executor: {same}", flush=True)
            result["same_verdicts"] = same
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str))


if __name__ == "__main__":
    main()
