"""Wall time of the commands that run no submission: help, version, usage and path errors, show, runs, signoff.

    python benchmarks/cli_startup.py [--repeats 5] [--busy] [--against OTHER_CHECKOUT] [--run-dir RUN]

Each command is ``python -m reviewer ...`` in a fresh process, timed as a median over --repeats, with the
heavy modules it imported (torch, triton, jax, numpy, langgraph; read from ``-X importtime``). None of
these commands runs a submission, so none should import torch, triton or jax (target: under 1 s each,
issue 34). ``show``, ``runs`` and ``signoff`` need a stored run awaiting sign-off: --run-dir names one,
else one builds-only review of examples/softmax_triton makes it first (not timed). ``signoff`` is timed
on a fresh copy of that run each time.

--busy runs two busy loops (one per core of a 2-core machine) while measuring; --against runs every
command from another checkout too (e.g. a ``git worktree`` of the previous commit) and prints the
ratios, both in one run so they share the machine's load. Prints a table and JSON on the last line.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "triton", "jax", "numpy", "langgraph")


def _spin() -> None:
    while True:
        pass


def commands(run: Path, runs_dir: Path) -> dict[str, list[str]]:
    """name -> arguments of ``python -m reviewer``; ``{copy}`` is replaced by a fresh copy of ``run``."""
    return {
        "--help": ["--help"],
        "--version": ["--version"],
        "review --help": ["review", "--help"],
        "review missing path": ["review", "no/such/submission"],
        "review bad option": ["review", "examples/softmax_triton", "--seeds", "0"],
        "review bad device": ["review", "examples/softmax_triton", "--device", "tpu"],
        "show": ["show", str(run)],
        "show --format json": ["show", str(run), "--format", "json"],
        "show missing run": ["show", "19990101-000000-000000", "--runs-dir", str(runs_dir)],
        "runs": ["runs", "--runs-dir", str(runs_dir)],
        "signoff": ["signoff", "{copy}", "--approve", "--by", "bench"],
    }


def time_one(checkout: Path, args: list[str], run: Path, repeats: int) -> tuple[float, list[str], int]:
    """(median wall seconds, heavy modules imported, exit status) of ``python -m reviewer args`` in ``checkout``."""
    times: list[float] = []
    heavy: list[str] = []
    code = 0
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            argv = list(args)
            if "{copy}" in argv:
                copy = Path(tmp) / run.name
                shutil.copytree(run, copy)
                argv[argv.index("{copy}")] = str(copy)
            env = {**os.environ, "KREVIEW_RUNS_DIR": str(Path(tmp) / "runs")}
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "reviewer", *argv], cwd=checkout, env=env,
                                  capture_output=True, text=True, timeout=300)
            times.append(time.perf_counter() - t0)
            code = proc.returncode
    # one more run for the import list (importtime slows the process, so it is not timed)
    with tempfile.TemporaryDirectory() as tmp:
        argv = [a if a != "{copy}" else str(shutil.copytree(run, Path(tmp) / run.name)) for a in args]
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "reviewer", *argv], cwd=checkout,
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, "KREVIEW_RUNS_DIR": str(Path(tmp) / "runs")})
    for line in proc.stderr.splitlines():
        name = line.rsplit("|", 1)[-1].strip()
        if line.startswith("import time:") and name in HEAVY:
            heavy.append(name)
    return statistics.median(times), sorted(set(heavy)), code


def make_run(runs_dir: Path) -> Path:
    proc = subprocess.run([sys.executable, "-m", "reviewer", "review", "examples/softmax_triton", "--only", "builds",
                           "--seed", "0", "--runs-dir", str(runs_dir), "--quiet", "--format", "json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"could not make a run to show: {proc.stderr[-2000:]}")
    return Path(json.loads(proc.stdout)["run_dir"])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--busy", action="store_true", help="two busy loops while measuring")
    ap.add_argument("--against", type=Path, help="another checkout to time the same commands in")
    ap.add_argument("--run-dir", type=Path, help="a stored run awaiting sign-off (default: make one)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs_dir = Path(tmp) / "runs"
        run = args.run_dir.resolve() if args.run_dir else make_run(runs_dir)
        runs_dir = run.parent
        spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(2 if args.busy else 0)]
        for p in spinners:
            p.start()
        rows: dict[str, dict[str, object]] = {}
        try:
            for name, argv in commands(run, runs_dir).items():
                s, heavy, code = time_one(ROOT, argv, run, args.repeats)
                row: dict[str, object] = {"s": round(s, 3), "exit": code, "heavy": heavy}
                if args.against:
                    o, oheavy, ocode = time_one(args.against.resolve(), argv, run, args.repeats)
                    row.update(against_s=round(o, 3), against_heavy=oheavy, against_exit=ocode,
                               ratio=round(o / s, 2) if s else None)
                rows[name] = row
        finally:
            for p in spinners:
                p.terminate()
    print(f"{'command':24} {'s':>7} {'exit':>4}  heavy imports" + ("   against_s  ratio" if args.against else ""))
    for name, r in rows.items():
        extra = f"   {r['against_s']:>9} {r['ratio']:>6}" if args.against else ""
        print(f"{name:24} {r['s']:>7} {r['exit']:>4}  {','.join(r['heavy']) or '-':20}{extra}")  # type: ignore[arg-type]
    print(json.dumps({"busy": args.busy, "repeats": args.repeats, "commands": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
