"""Import time of the libraries a sandbox child or the reviewer loads, each in a fresh interpreter.

    python benchmarks/library_imports.py [--repeats 5] [--path EXTRA_FOLDER]

A sandbox child imports its libraries before its ready message, on every start (docs/sandbox.md): a
Triton child torch and Triton, a Pallas child torch and JAX, an NKI child ml_dtypes. Each line here is
the median wall of ``import NAME`` (after ``import torch`` where the child has torch already, so only
the library's own share is counted), with the installed version. --path puts a folder first on the
path of every measured process (e.g. ``pip install --target DIR ml_dtypes==0.6.0``) to compare another
release against the installed one in the same run. Prints a table and JSON on the last line.

Why it exists: with numpy 2.4, ml_dtypes 0.7.0 takes 0.7-0.9 s to import on the 2-core dev machine
(its extension registers each new ufunc loop with a linear search of the loops before it), 0.6.0 0.09 s
(numpy's own import included; after numpy: 0.68 against 0.008 s); JAX imports it, so every Pallas child
paid it at each start (pyproject.toml keeps ml_dtypes below 0.7 for that reason).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

# (label, statement run first and not timed, statement timed)
CASES = (
    ("torch", "", "import torch"),
    ("triton (after torch)", "import torch", "import triton"),
    ("ml_dtypes (after numpy)", "import numpy", "import ml_dtypes"),
    ("jax (after torch)", "import torch", "import jax"),
    ("jax.experimental.pallas (after jax)", "import torch, jax", "import jax.experimental.pallas"),
    ("langgraph (graph, types)", "", "import langgraph.graph, langgraph.types"),
)

_PROBE = """
import time, json, importlib.metadata as md
{setup}
t = time.perf_counter()
{stmt}
dt = time.perf_counter() - t
name = {dist!r}
try:
    version = md.version(name)
except md.PackageNotFoundError:
    version = "absent"
print(json.dumps({{"s": dt, "version": version}}))
"""


def _dist(stmt: str) -> str:
    """The distribution whose version is reported: the first imported module's top-level name."""
    return stmt.split()[1].split(".")[0].split(",")[0]


def measure(setup: str, stmt: str, repeats: int, path: str | None) -> tuple[float | None, str]:
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = path + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    code = _PROBE.format(setup=setup, stmt=stmt, dist=_dist(stmt))
    times, version = [], "absent"
    for _ in range(repeats):
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        if p.returncode != 0:
            return None, "not importable"
        out = json.loads(p.stdout.strip().splitlines()[-1])
        times.append(out["s"])
        version = out["version"]
    return statistics.median(times), version


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--path", default=None, help="a folder put first on the measured processes' path")
    args = ap.parse_args()
    rows = {}
    for label, setup, stmt in CASES:
        s, version = measure(setup, stmt, args.repeats, None)
        row = {"s": None if s is None else round(s, 3), "version": version}
        if args.path:
            s2, v2 = measure(setup, stmt, args.repeats, args.path)
            row["with_path"] = {"s": None if s2 is None else round(s2, 3), "version": v2}
        rows[label] = row
        other = row.get("with_path")
        extra = f"   with --path: {other['s']} s ({other['version']})" if other else ""
        print(f"{label:38s} {row['s']!s:>7} s  {version}{extra}", flush=True)
    print(json.dumps({"repeats": args.repeats, "path": bool(args.path), "imports": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
