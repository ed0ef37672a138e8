"""Where the test suite's review CPU goes: child starts, requests and the parent, per kernel review.

    python benchmarks/suite_cpu.py [REGEX ...] [--json OUT.json]

The kernel-verdict reviews (tests/e2e/test_kernel_verdicts.py) are most of the suite's time, and CI runs on 2
cores that the suite keeps busy (``-n 2``: 1.96 of 2 cores busy on a run of 52 of them), so what CI takes is
their CPU, not their wall time. Each case whose id (``family/file``) matches a REGEX (all without one) is
reviewed here, one after another in this process, as the test does: the family's reference beside the file,
the corpus's tools and settings, seed 1234, and one reference store for the whole run (the suite shares one
among its workers). Per review: wall, the machine's busy CPU over the review (``/proc/stat``: run it on an
otherwise idle machine), the parent's own CPU, the sandbox children launched and started (ready), and the
seconds of each request (the sandbox worker's debug log).

First it starts one sandbox child three times and takes the median busy CPU of a start (its interpreter,
preludes, torch, Triton and harness imports). ``start_share`` = children started x that figure / all busy CPU:
the part of the reviews' CPU a child forked from an imported one (docs/sandbox.md, "Forked children") would
save, less its fork (about 12 ms, benchmarks/sandbox_start.py). Prints a table and JSON on the last line.
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_CALL = re.compile(r"child (\S+): (\S+) in ([\d.]+) s")


def busy_cpu_s() -> float:
    """Seconds of CPU the whole machine spent busy since boot (every state but idle and iowait)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / 100


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def start_cpu_s(folder: Path, repeats: int = 3) -> float:
    """The median busy CPU of one sandbox child's start (launch to ready)."""
    from reviewer.core.limits import SandboxLimits
    from tools.engine.sandbox.worker import SandboxWorker

    spent = []
    for i in range(repeats):
        w = SandboxWorker(f"bench{i}", folder / f"w{i}", SandboxLimits())
        b0 = busy_cpu_s()
        res = w.start()
        spent.append(busy_cpu_s() - b0)
        w.remove()
        if not (res.answered and res.ok):
            raise SystemExit(f"a sandbox child did not start: {res.failure_text()}")
    return statistics.median(spent)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("patterns", nargs="*", help="regular expressions over case ids (family/file)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kreview-suite-cpu-"))
    import os

    os.environ["KREVIEW_REFERENCE_CACHE"] = str(work / "reference-store")
    from reviewer.api import start_review
    from reviewer.core.config import ReviewConfig
    from reviewer.core.limits import SandboxLimits
    from tests.e2e import test_kernel_verdicts as verdicts
    from tests.kernelfiles import materialize
    from tools.engine.sandbox import worker

    lines = _Lines()
    log = logging.getLogger(worker.__name__)
    log.setLevel(logging.DEBUG)
    log.addHandler(lines)
    launched: list[str] = []
    launch = worker.SandboxWorker.launch

    def counted(self: worker.SandboxWorker) -> None:
        launched.append(self.name)
        launch(self)

    worker.SandboxWorker.launch = counted  # type: ignore[method-assign]
    cases = {p.id: p.values for p in verdicts.CASES}
    chosen = [c for c in cases if not args.patterns or any(re.search(p, c) for p in args.patterns)]
    if not chosen:
        print("no case matches", file=sys.stderr)
        return 2
    try:
        per_start = start_cpu_s(work / "calibrate")
        rows = []
        for i, cid in enumerate(chosen):
            corpus, path = cases[cid]
            spec = verdicts.CORPORA[corpus]
            sub = path.parent if path.is_relative_to(verdicts.EXAMPLES) else materialize(path, work / f"{i}" / "sub")
            base = ReviewConfig(runs_dir=work / f"{i}" / "runs", seed=1234, signoff=False,
                                limits=SandboxLimits(call_timeout_s=60))
            config = spec.config(path, base)
            lines.lines.clear()
            launched.clear()
            t0, b0, c0 = time.monotonic(), busy_cpu_s(), time.process_time()
            review = start_review(sub, config)
            row = {"case": cid, "wall_s": round(time.monotonic() - t0, 2), "busy_s": round(busy_cpu_s() - b0, 2),
                   "parent_s": round(time.process_time() - c0, 2), "launched": len(launched),
                   "started": sum("started in" in m for m in lines.lines), "overall": review.overall,
                   "requests": collections.Counter(), "request_s": collections.Counter()}
            for m in lines.lines:
                if (hit := _CALL.match(m)) and hit.group(2) != "started":
                    row["requests"][hit.group(2)] += 1
                    row["request_s"][hit.group(2)] += float(hit.group(3))
            rows.append(row)
            print(f"{cid:58s} wall {row['wall_s']:6.2f}  busy {row['busy_s']:6.2f}  started {row['started']}",
                  flush=True)
    finally:
        worker.SandboxWorker.launch = launch  # type: ignore[method-assign]
        shutil.rmtree(work, ignore_errors=True)
    busy = sum(r["busy_s"] for r in rows)
    started = sum(r["started"] for r in rows)
    request_s: collections.Counter[str] = collections.Counter()
    for r in rows:
        request_s.update(r["request_s"])
    families: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0])
    for r in rows:
        f = families[r["case"].split("/")[0]]
        f[0] += 1
        f[1] += r["busy_s"]
        f[2] += r["started"]
    summary = {"reviews": len(rows), "busy_s": round(busy, 1), "wall_s": round(sum(r["wall_s"] for r in rows), 1),
               "parent_s": round(sum(r["parent_s"] for r in rows), 1), "launched": sum(r["launched"] for r in rows),
               "started": started, "start_cpu_s": round(per_start, 3),
               "start_share": round(started * per_start / busy, 3) if busy else None,
               "request_s": {k: round(v, 1) for k, v in request_s.most_common()},
               "families": {k: {"reviews": v[0], "busy_s": round(v[1], 1), "started": v[2]}
                            for k, v in sorted(families.items(), key=lambda kv: -kv[1][1])}}
    print(f"\n{summary['reviews']} reviews: busy {summary['busy_s']} s, wall {summary['wall_s']} s, parent "
          f"{summary['parent_s']} s; children started {started} (launched {summary['launched']}), "
          f"{per_start:.2f} s of CPU each: {summary['start_share']:.0%} of the busy CPU")
    for op, s in list(summary["request_s"].items())[:8]:
        print(f"  {op:28s} {s:8.1f} s")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "reviews": rows}, indent=1, default=dict))
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
