"""What spinning thread pools cost the other processes on the machine, with the sandbox children's wait
settings (``OMP_WAIT_POLICY=PASSIVE``, ``OPENBLAS_THREAD_TIMEOUT=4``: tools/engine/sandbox/env.py) and
without them (the libraries' defaults).

    python benchmarks/thread_spin.py [--seconds 6] [--rounds 2]

A review's children do a torch operation, then other work (reading a request, writing a file), then
another; so do the two test workers' children beside each other. Here, per setting: two stand-in children
(two torch threads each, as the sandbox gives them) run that pattern for --seconds while a single-threaded
Python loop, the stand-in for everything else on the machine, runs a fixed amount of work. Reported: the
loop's wall time and the operations each stand-in child got done. Also: the CPU a process spends
importing numpy (OpenBLAS starts its threads then). Settings alternate over --rounds; medians printed,
JSON on the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.engine.sandbox.env import PASSIVE_WAIT  # noqa: E402

SETTINGS = {"defaults": {}, "sandbox": PASSIVE_WAIT}

_CHILD = """
import sys, time, torch
torch.set_num_threads(2)
x = torch.randn(64, 1000)
end, n = time.time() + float(sys.argv[1]), 0
while time.time() < end:
    (x * 2).softmax(-1).sum()
    n += 1
    time.sleep(0.002)
print(n)
"""

_LOOP = """
import time
t = time.perf_counter()
s = 0
for i in range(12_000_000):
    s += i
print(time.perf_counter() - t)
"""

_NUMPY = "import numpy, time; time.sleep(0.3)"


def _env(setting: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in PASSIVE_WAIT}
    env.update(OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2", **setting)
    return env


def contention(setting: dict[str, str], seconds: float) -> tuple[float, list[int]]:
    env = _env(setting)
    children = [subprocess.Popen([sys.executable, "-c", _CHILD, str(seconds)], env=env, stdout=subprocess.PIPE,
                                 text=True) for _ in range(2)]
    time.sleep(min(1.5, seconds / 4))  # the children have imported torch and are working
    loop = float(subprocess.run([sys.executable, "-c", _LOOP], capture_output=True, text=True,
                                check=True).stdout)
    ops = [int(c.communicate()[0]) for c in children]
    return loop, ops


def numpy_import_cpu(setting: dict[str, str]) -> float:
    before = os.times()
    subprocess.run([sys.executable, "-c", _NUMPY], env=_env(setting), check=True)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    got: dict[str, dict[str, list[float]]] = {k: {"loop_s": [], "ops": [], "numpy_cpu_s": []} for k in SETTINGS}
    for _ in range(args.rounds):
        for name, setting in SETTINGS.items():
            loop, ops = contention(setting, args.seconds)
            got[name]["loop_s"].append(loop)
            got[name]["ops"].extend(ops)
            got[name]["numpy_cpu_s"].append(numpy_import_cpu(setting))
    out = {}
    for name in SETTINGS:
        out[name] = {k: round(statistics.median(v), 3) for k, v in got[name].items()}
        print(f"{name:9s} loop {out[name]['loop_s']:.2f} s   ops per child {out[name]['ops']:.0f}   "
              f"numpy import CPU {out[name]['numpy_cpu_s']:.3f} s")
    print(json.dumps({"seconds": args.seconds, "rounds": args.rounds, "settings": SETTINGS, "medians": out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
