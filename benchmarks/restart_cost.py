"""What a restart of the submission child costs, forked from the child's first process or started anew
(issue 34; tools/engine/sandbox/zygote.py), and whether a forked child answers as fast as a started one.

    python benchmarks/restart_cost.py [EXAMPLE_DIR] [--rounds 4] [--calls 12]

For each way (forks, then ``KREVIEW_CHILD_FORKS=off``) one session of the example: ``--calls`` cases run
on the first child, then ``--rounds`` times a restart followed by the same cases. Prints, per way, the
restart's wall time until the next child is ready (a fork is waited for inside ``restart``; a started
child at its first request), the CPU its children used (``/proc`` of the sandbox's processes is not the
parent's: the machine's busy time around the restart is the figure), and the time of the cases in each
child. JSON on the last line.
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from core_use import cpu_ticks  # noqa: E402


def one_way(example: Path, rounds: int, calls: int, forks: bool) -> dict:
    from reviewer.core.config import ReviewConfig
    from reviewer.device import detect_device
    from reviewer.graph.context import make_tool_context
    from reviewer.ingest import load_submission
    from tools.engine.harness.case import Case
    from tools.engine.sandbox.worker import FORKS_ENV

    os.environ[FORKS_ENV] = "on" if forks else "off"
    tick = os.sysconf("SC_CLK_TCK")
    with tempfile.TemporaryDirectory() as tmp:
        ctx = make_tool_context(load_submission(example), ReviewConfig(), Path(tmp) / "run", 7, detect_device("cpu"))
        session = ctx.session
        try:
            cases = [Case(id=f"c{i}", seed=i) for i in range(calls)]
            refs = [session.reference(c) for c in cases]
            restarts, cpu, runs = [], [], []
            for n in range(rounds + 1):
                t0 = time.perf_counter()
                for case, ref in zip(cases, refs):
                    assert session.run_submission(case, ref).ok
                runs.append(time.perf_counter() - t0)
                if n == rounds:
                    break
                busy0, _ = cpu_ticks()
                t0 = time.perf_counter()
                session.restart("submission")
                worker = session._workers["submission"]
                if worker.launched or not worker.alive:
                    worker.wait_ready() if worker.launched else worker.start()
                restarts.append(time.perf_counter() - t0)
                cpu.append((cpu_ticks()[0] - busy0) / tick)
            worker = session._workers["submission"]
            return {"forked": worker.forked, "starts": worker.starts,
                    "restart_s": round(statistics.median(restarts), 4), "restart_cpu_s": round(statistics.median(cpu), 3),
                    "first_child_cases_s": round(runs[0], 3), "later_children_cases_s": round(statistics.median(runs[1:]), 3)}
        finally:
            session.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("example", nargs="?", default=str(ROOT / "examples" / "softmax_triton"))
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--calls", type=int, default=12)
    args = ap.parse_args()
    out = {way: one_way(Path(args.example), args.rounds, args.calls, way == "forks") for way in ("forks", "starts")}
    for way, r in out.items():
        print(f"{way:7s} restart {r['restart_s']:.3f} s wall, {r['restart_cpu_s']:.2f} s machine CPU; "
              f"{args.calls} cases: first child {r['first_child_cases_s']:.2f} s, later children "
              f"{r['later_children_cases_s']:.2f} s (forked {r['forked']}, started {r['starts'] - r['forked']})")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
