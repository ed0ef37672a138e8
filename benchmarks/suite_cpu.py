"""Where the test suite's review CPU goes: sandbox child starts, restarts, requests and the parent.

    python benchmarks/suite_cpu.py [REGEX ...] [--json OUT.json]

The kernel-verdict reviews (tests/e2e/test_kernel_verdicts.py) are most of the suite's time, and CI runs on 2
cores that the suite keeps busy (``-n 2``: 1.96 of 2 cores busy over 52 of these reviews, ``/proc/stat``
around ``pytest -n 2 tests/e2e/test_kernel_verdicts.py -k "integrity_softmax or softmax/ or memcheck"``), so what CI takes is
their CPU, not their wall time. Each case whose id (``family/file``) matches a REGEX (all without one; cases
the test would skip, such as CUDA files without nvcc, are left out) is reviewed here, one after another in this
process, as the test does (the family's reference beside the file, the corpus's tools and settings, seed
1234), with one reference store for the whole run, as the suite's workers share one.

Per review: wall; CPU as the parent's own, what it reaped (tools such as ptxas, children that ended on their
own) and the sandbox children it killed (batch_throughput.py's ``Meter``, read from /proc just before each
kill); children launched (spares included), started (a ready message waited for, or its failure), started
with a pid target (the many-calls probe's second child) and restarted (a role of a session started again,
without a pid target: what a child forked from an imported one would replace, docs/sandbox.md "Where a
review's time goes"); the parent's wall wait per request kind; and the machine's busy CPU over the review
(``/proc/stat``, a cross-check that needs an otherwise idle machine: what it shows beyond the CPU counted is
what was missed, such as children that crashed).

Then, for each kind of child launched (its preludes and device settings), it starts such a child three
times and takes the median CPU of its start (interpreter, preludes such as Triton's or JAX's imports, torch
and the harness): ``start_s`` prices every start so, ``restart_s`` the restarts. ``--json`` keeps every
review's figures (per family: group by ``family``). Prints a table and JSON on the last line.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from batch_throughput import Meter  # noqa: E402
from core_use import cpu_ticks  # noqa: E402


def busy_cpu_s() -> float:
    """CPU seconds the whole machine spent busy since boot."""
    total, idle = cpu_ticks()
    return (total - idle) / os.sysconf("SC_CLK_TCK")


def kind_of(w: Any) -> str:
    """What a child's start costs depends on, as a label: its preludes, device and virtual GPU (not its
    folders)."""
    gpu = (w.child_config.get("virtual_gpu") or {}).get("key", "")
    return " ".join([*(p.rsplit(".", 1)[-1] for p in w.preludes), w.child_config.get("device", ""), gpu]).strip()


def split_starts(starts: list[tuple[str, str, int | None, str]]) -> tuple[list[str], list[str]]:
    """The kinds of the restarts and of the second children among one review's starts ((session folder,
    role, pid target, kind) each). A restart: a role of a session started again, never a child with a pid
    target (the many-calls probe's second child, which stays a separate start in the forked design)."""
    seen: set[tuple[str, str]] = set()
    restarts, second = [], []
    for root, role, target, kind in starts:
        if target is not None:
            second.append(kind)
        elif (root, role) in seen:
            restarts.append(kind)
        seen.add((root, role))
    return restarts, second


def skipped(marks: Any) -> bool:
    """True where one of a case's marks is a ``skipif`` whose condition holds here."""
    return any(getattr(m, "name", "") == "skipif" and m.args and m.args[0] for m in marks)


def start_cpu_s(folder: Path, kind: dict[str, Any], repeats: int = 3) -> float:
    """The median CPU of starting, to its ready message, a child with ``kind``'s preludes and settings."""
    from reviewer.core.limits import SandboxLimits
    from tools.engine.sandbox.worker import SandboxWorker

    spent = []
    for i in range(repeats):
        meter = Meter()
        w = SandboxWorker(f"calibrate{i}", folder / f"w{i}", SandboxLimits(), preludes=kind["preludes"],
                          child_config=kind["child_config"], env_extra=kind["env_extra"])
        res = w.start()
        meter.sample(w.proc)
        w.remove()
        if not (res.answered and res.ok):
            raise RuntimeError(f"a sandbox child did not start: {res.failure_text()}")
        spent.append(meter.child_cpu_s)
    return statistics.median(spent)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("patterns", nargs="*", help="regular expressions over case ids (family/file)")
    ap.add_argument("--json", type=Path, help="also write every review's figures here")
    args = ap.parse_args()
    from tests.e2e import test_kernel_verdicts as verdicts

    cases = {p.id: (p.values, p.marks) for p in verdicts.CASES}
    chosen = [c for c in cases if (not args.patterns or any(re.search(p, c) for p in args.patterns))
              and not skipped(cases[c][1])]
    if not chosen:
        print("no case matches", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="kreview-suite-cpu-"))
    os.environ["KREVIEW_REFERENCE_CACHE"] = str(work / "reference-store")
    from reviewer.api import start_review
    from reviewer.core.config import ReviewConfig
    from reviewer.core.limits import SandboxLimits
    from tests.kernelfiles import materialize
    from tools.engine.sandbox import worker

    meter = Meter()
    meter.install()
    kinds: dict[str, dict[str, Any]] = {}  # by ``kind_of``: what a calibrating start needs
    starts: list[tuple[str, str, int | None, str]] = []  # (session folder, role, pid target, kind) per start
    launch, wait_ready = worker.SandboxWorker.launch, worker.SandboxWorker.wait_ready

    def recorded(self: worker.SandboxWorker) -> None:
        kinds.setdefault(kind_of(self), {"preludes": list(self.preludes), "child_config": dict(self.child_config),
                                         "env_extra": dict(self.env_extra)})
        launch(self)

    def waited(self: worker.SandboxWorker) -> Any:
        if self._pending_ready:  # a launched child's ready message (or its failure): one start
            starts.append((str(self.workdir.parent), self.name, self.pid_target, kind_of(self)))
        return wait_ready(self)

    worker.SandboxWorker.launch = recorded  # type: ignore[method-assign]
    worker.SandboxWorker.wait_ready = waited  # type: ignore[method-assign]
    timeout = float(os.environ.get("KREVIEW_TEST_TIMEOUT", 60))
    def review(i: int, cid: str) -> dict[str, Any]:
        (corpus, path), _ = cases[cid]
        spec = verdicts.CORPORA[corpus]
        sub = path.parent if path.is_relative_to(verdicts.EXAMPLES) else materialize(path, work / f"{i}" / "sub")
        base = ReviewConfig(runs_dir=work / f"{i}" / "runs", seed=1234, signoff=False,
                            limits=SandboxLimits(call_timeout_s=timeout))
        meter.reset()
        starts.clear()
        t0, b0, c0, o0 = time.monotonic(), busy_cpu_s(), time.process_time(), os.times()
        try:
            overall = start_review(sub, spec.config(path, base)).overall
        except Exception as exc:  # noqa: BLE001 - a review that raises is a row, not the end of the run
            overall = f"error: {exc!r}"[:200]
        o1 = os.times()
        restarts, second = split_starts(starts)
        return {"case": cid, "family": cid if cid.startswith("examples/") else cid.rsplit("/", 1)[0],
                "overall": overall, "wall_s": round(time.monotonic() - t0, 2),
                "busy_s": round(busy_cpu_s() - b0, 2), "parent_s": round(time.process_time() - c0, 2),
                "reaped_s": round(o1.children_user - o0.children_user + o1.children_system - o0.children_system, 2),
                "children_s": round(meter.child_cpu_s, 2), "launched": meter.starts,
                "started": len(starts), "restarted": len(restarts), "second_children": len(second),
                "started_kinds": [k for *_, k in starts], "restart_kinds": restarts,
                "request_wall_s": {k: round(v, 2) for k, v in meter.by_op.items()}}

    rows: list[dict[str, Any]] = []
    try:
        try:
            for i, cid in enumerate(chosen):
                rows.append(r := review(i, cid))
                print(f"{cid:58s} wall {r['wall_s']:6.2f}  parent {r['parent_s'] + r['reaped_s']:5.2f}  children "
                      f"{r['children_s']:6.2f}  started {r['started']} (restarted {r['restarted']})", flush=True)
        finally:
            worker.SandboxWorker.launch, worker.SandboxWorker.wait_ready = launch, wait_ready  # type: ignore[method-assign]
        # after the patches are undone: the calibrating starts are no review's
        price = {key: start_cpu_s(work / "calibrate", kind) for key, kind in kinds.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    total = {k: round(sum(r[k] for r in rows), 1)
             for k in ("wall_s", "busy_s", "parent_s", "reaped_s", "children_s")}
    counts = {k: sum(r[k] for r in rows) for k in ("launched", "started", "restarted", "second_children")}
    cpu = total["parent_s"] + total["reaped_s"] + total["children_s"]
    requests: collections.Counter[str] = collections.Counter()
    for r in rows:
        requests.update(r["request_wall_s"])
    summary = {"reviews": len(rows), **total, **counts, "cpu_s": round(cpu, 1),
               "start_cpu_s": {k: round(v, 2) for k, v in price.items()},
               "start_s": round(sum(price[k] for r in rows for k in r["started_kinds"]), 1),
               "restart_s": round(sum(price[k] for r in rows for k in r["restart_kinds"]), 1),
               "request_wall_s": {k: round(v, 1) for k, v in requests.most_common()}}
    share = (lambda x: f"{x / cpu:.0%}") if cpu else (lambda x: "n/a")
    print(f"\n{len(rows)} reviews: {cpu:.1f} s of CPU (parent {total['parent_s']}, reaped by it {total['reaped_s']}, "
          f"sandbox children killed {total['children_s']}; the machine's busy CPU {total['busy_s']}), "
          f"wall {total['wall_s']} s")
    print(f"children launched {counts['launched']}, started {counts['started']} ({counts['second_children']} with a "
          f"pid target), restarted {counts['restarted']}: starts {summary['start_s']} s ({share(summary['start_s'])}),"
          f" restarts {summary['restart_s']} s ({share(summary['restart_s'])})")
    for op, s in list(summary["request_wall_s"].items())[:8]:
        print(f"  {op:28s} {s:8.1f} s waited")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "reviews": rows}, indent=1))
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
