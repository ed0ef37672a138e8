"""Tasks per minute of ``kreview audit`` on a whole benchmark level, first run and cached rerun.

    python benchmarks/audit_throughput.py [--tasks N] [--seed S] [--runs 1|2] [--keep DIR] [-- EXTRA AUDIT ARGS]
    python benchmarks/audit_throughput.py --tasks 20 --profile 6     # where one task's time goes

Writes a synthetic KernelBench-style level folder of N small reference files (``1_relu.py``,
``2_softmax.py`` ...) into a temporary folder: each file defines ``Model``, ``get_inputs`` and
``get_init_inputs`` with module-level size constants, in the style of the public level-1 problems
(elementwise activations, reductions, softmax, matmul, norms), ops and shapes drawn from a seeded
generator, so the same ``--seed`` writes the same folder. The files are generated here from a small
table of templates; none is a copy of a KernelBench problem file.

Then runs ``python -m reviewer audit FOLDER --format json -q EXTRA`` twice with a fresh
``XDG_CACHE_HOME`` (the audit cache's default home, so no earlier cache is read): the first run, and
a second on the unchanged folder (served from the cache where the audit keeps one). Prints both wall
times, tasks/minute, whether the two runs' JSON agree, the machine's load, and a JSON last line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HEADER = '"""{doc}"""\nimport torch\nimport torch.nn as nn\n\n'

# Each template: (name, doc, forward body, extra constructor lines, inputs, sizes drawn).
# Sizes are small (tens of thousands of elements) so the reference's own compute is a few ms.
ELEMENTWISE = {
    "relu": "torch.relu(x)", "gelu": "torch.nn.functional.gelu(x)", "tanh": "torch.tanh(x)",
    "sigmoid": "torch.sigmoid(x)", "silu": "torch.nn.functional.silu(x)", "elu": "torch.nn.functional.elu(x)",
    "softplus": "torch.nn.functional.softplus(x)", "hardtanh": "torch.nn.functional.hardtanh(x, -1.0, 1.0)",
    "leaky_relu": "torch.nn.functional.leaky_relu(x, 0.01)", "swish_scaled": "x * torch.sigmoid(1.5 * x)",
}
REDUCTIONS = {
    "sum": "torch.sum(x, dim=self.dim, keepdim=True)", "mean": "torch.mean(x, dim=self.dim)",
    "max": "torch.max(x, dim=self.dim)[0]", "min": "torch.min(x, dim=self.dim)[0]",
    "prod_abs": "torch.prod(1.0 + 0.01 * x, dim=self.dim)", "norm": "torch.norm(x, dim=self.dim)",
    "logsumexp": "torch.logsumexp(x, dim=self.dim)", "cumsum": "torch.cumsum(x, dim=self.dim)",
}
SOFTMAXES = {"softmax": "torch.softmax(x, dim=self.dim)", "log_softmax": "torch.log_softmax(x, dim=self.dim)"}


def _sizes(rng: random.Random) -> tuple[int, int]:
    return rng.choice([4, 8, 16, 32]), rng.choice([64, 128, 256, 512, 1024])


def _elementwise(rng: random.Random, name: str) -> str:
    batch, dim = _sizes(rng)
    gen = rng.choice(["torch.randn(batch_size, dim)", "torch.randn(batch_size, dim) * 2.0"])
    return (HEADER.format(doc=f"Elementwise {name} over a ({batch}, {dim}) float32 tensor.")
            + f"batch_size = {batch}\ndim = {dim}\n\n\nclass Model(nn.Module):\n    def __init__(self):\n"
            f"        super().__init__()\n\n    def forward(self, x):\n        return {ELEMENTWISE[name]}\n\n\n"
            f"def get_inputs():\n    return [{gen}]\n\n\ndef get_init_inputs():\n    return []\n")


def _along_dim(rng: random.Random, name: str, body: str, what: str) -> str:
    batch, dim = _sizes(rng)
    rows = rng.choice([1, 2, 4])
    reduce_dim = rng.choice([1, 2]) if rows > 1 else 1
    shape = f"batch_size, dim, {rows}" if rows > 1 else "batch_size, dim"
    return (HEADER.format(doc=f"{what} {name} along dim {reduce_dim} of a float32 tensor.")
            + f"batch_size = {batch}\ndim = {dim}\nreduce_dim = {reduce_dim}\n\n\nclass Model(nn.Module):\n"
            f"    def __init__(self, dim):\n        super().__init__()\n        self.dim = dim\n\n"
            f"    def forward(self, x):\n        return {body}\n\n\n"
            f"def get_inputs():\n    return [torch.randn({shape})]\n\n\ndef get_init_inputs():\n    return [reduce_dim]\n")


def _matmul(rng: random.Random, name: str) -> str:
    m, k, n = rng.choice([16, 32, 64]), rng.choice([32, 64, 128]), rng.choice([16, 32, 64])
    if name == "bmm":
        b = rng.choice([2, 4])
        return (HEADER.format(doc=f"Batched matmul ({b}, {m}, {k}) x ({b}, {k}, {n}).")
                + f"batch = {b}\nm = {m}\nk = {k}\nn = {n}\n\n\nclass Model(nn.Module):\n    def __init__(self):\n"
                "        super().__init__()\n\n    def forward(self, a, b):\n        return torch.bmm(a, b)\n\n\n"
                "def get_inputs():\n    return [torch.randn(batch, m, k), torch.randn(batch, k, n)]\n\n\n"
                "def get_init_inputs():\n    return []\n")
    if name == "linear":
        return (HEADER.format(doc=f"Linear layer {k} -> {n} on {m} rows (weights from the module).")
                + f"rows = {m}\nin_features = {k}\nout_features = {n}\n\n\nclass Model(nn.Module):\n"
                "    def __init__(self, in_features, out_features):\n        super().__init__()\n"
                "        self.fc = nn.Linear(in_features, out_features)\n\n    def forward(self, x):\n"
                "        return self.fc(x)\n\n\ndef get_inputs():\n    return [torch.randn(rows, in_features)]\n\n\n"
                "def get_init_inputs():\n    return [in_features, out_features]\n")
    trans = name == "matmul_transposed"
    b_shape = "N, K" if trans else "K, N"
    op = "torch.matmul(a, b.T)" if trans else "torch.matmul(a, b)"
    return (HEADER.format(doc=f"Matmul of ({m}, {k}) by {'the transpose of ' if trans else ''}a "
                              f"({b_shape}) matrix.")
            + f"M = {m}\nK = {k}\nN = {n}\n\n\nclass Model(nn.Module):\n    def __init__(self):\n"
            f"        super().__init__()\n\n    def forward(self, a, b):\n        return {op}\n\n\n"
            f"def get_inputs():\n    return [torch.randn(M, K), torch.randn({b_shape})]\n\n\n"
            "def get_init_inputs():\n    return []\n")


def _norm(rng: random.Random, name: str) -> str:
    batch, dim = _sizes(rng)
    if name == "layer_norm":
        init, fwd = "self.norm = nn.LayerNorm(dim)", "self.norm(x)"
    elif name == "rms_norm":
        init, fwd = "self.eps = 1e-5", "x / torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)"
    elif name == "l2_norm":
        init, fwd = "pass", "x / torch.norm(x, p=2, dim=1, keepdim=True)"
    else:  # batch_norm over features, eval-free: training statistics of the batch
        init, fwd = "self.norm = nn.BatchNorm1d(dim)", "self.norm(x)"
    return (HEADER.format(doc=f"{name.replace('_', ' ')} over rows of a ({batch}, {dim}) float32 tensor.")
            + f"batch_size = {batch}\ndim = {dim}\n\n\nclass Model(nn.Module):\n    def __init__(self, dim):\n"
            f"        super().__init__()\n        {init}\n\n    def forward(self, x):\n        return {fwd}\n\n\n"
            "def get_inputs():\n    return [torch.randn(batch_size, dim)]\n\n\ndef get_init_inputs():\n"
            "    return [dim]\n")


def task_source(rng: random.Random) -> tuple[str, str]:
    """(name, source) of one synthetic level-1 task."""
    family = rng.choice(["elementwise", "elementwise", "reduction", "softmax", "matmul", "norm"])
    if family == "elementwise":
        name = rng.choice(sorted(ELEMENTWISE))
        return name, _elementwise(rng, name)
    if family == "reduction":
        name = rng.choice(sorted(REDUCTIONS))
        return name, _along_dim(rng, name, REDUCTIONS[name], "Reduction")
    if family == "softmax":
        name = rng.choice(sorted(SOFTMAXES))
        return name, _along_dim(rng, name, SOFTMAXES[name], "Normalisation")
    if family == "matmul":
        name = rng.choice(["matmul", "matmul_transposed", "bmm", "linear"])
        return name, _matmul(rng, name)
    name = rng.choice(["layer_norm", "rms_norm", "l2_norm", "batch_norm"])
    return name, _norm(rng, name)


def write_level(folder: Path, n: int, seed: int) -> list[Path]:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(1, n + 1):
        name, src = task_source(rng)
        path = folder / f"{i}_{name}.py"
        path.write_text(src)
        out.append(path)
    return out


def run_audit(folder: Path, cache_home: Path, extra: list[str]) -> tuple[float, int, dict, str]:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache_home))
    start = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "reviewer", "audit", str(folder), "--format", "json", "-q", *extra],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=6 * 3600)
    wall = time.perf_counter() - start
    try:
        data = json.loads(res.stdout)
    except json.JSONDecodeError:
        data = {"tasks": []}
    return wall, res.returncode, data, res.stderr[-2000:]


def profile(folder: Path, count: int) -> dict:
    """Where one task's audit spends its time, in this process: sandbox child start-up (launch until
    ready), each request the parent sends the reference child (by op), and the rest (the parent's
    own work: ingest, impostors, judgement, the session's files)."""
    sys.path.insert(0, str(ROOT))
    from reviewer.audit import audit_one, find_tasks
    from reviewer.core.config import ReviewConfig
    from tools.engine.sandbox import SandboxWorker

    spent: dict[str, float] = {}
    counts: dict[str, int] = {}

    def timed(name: str, fn):  # noqa: ANN001, ANN202 - a patch of a SandboxWorker method
        def wrapper(self, *a, **k):  # noqa: ANN001, ANN202
            key = name if name != "call" else f"call:{a[0] if a else k.get('op')}"
            t0 = time.perf_counter()
            try:
                return fn(self, *a, **k)
            finally:
                spent[key] = spent.get(key, 0.0) + time.perf_counter() - t0
                counts[key] = counts.get(key, 0) + 1
        return wrapper

    orig = {n: getattr(SandboxWorker, n) for n in ("launch", "wait_ready", "call")}
    for n, fn in orig.items():
        setattr(SandboxWorker, n, timed(n, fn))
    t_import = time.perf_counter()
    tasks = find_tasks([folder])[:count]
    ingest = time.perf_counter() - t_import
    total = 0.0
    try:
        for task in tasks:
            t0 = time.perf_counter()
            audit_one(task, ReviewConfig(), 0)
            total += time.perf_counter() - t0
    finally:
        for n, fn in orig.items():
            setattr(SandboxWorker, n, fn)
    # wait_ready runs inside the first call: that call's time includes the start-up
    ready = spent.get("wait_ready", 0.0)
    first_call = next((k for k in spent if k.startswith("call:load")), None)
    if first_call:
        spent[first_call] -= ready
    per_task = {k: round(v / len(tasks), 3) for k, v in sorted(spent.items(), key=lambda kv: -kv[1])}
    per_task["parent (rest)"] = round((total - sum(spent.values())) / len(tasks), 3)
    return {"tasks": len(tasks), "seconds_per_task": round(total / len(tasks), 2),
            "ingest_all_s": round(ingest, 2), "per_task_s": per_task,
            "calls_per_task": {k: v / len(tasks) for k, v in counts.items()}}


def _findings(data: dict) -> list[tuple[str, bool, list[dict]]]:
    return [(t["path"], t["degenerate"], t["findings"]) for t in data.get("tasks", [])]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0, help="seed of the generated folder (not of the audit)")
    ap.add_argument("--keep", type=Path, help="write the folder here and keep it")
    ap.add_argument("--runs", type=int, choices=(1, 2), default=2,
                    help="1: the first run only (an audit without a cache reruns at the same speed)")
    ap.add_argument("--write-only", action="store_true", help="write the folder and stop")
    ap.add_argument("--profile", type=int, metavar="K", help="instead: profile the audit of the first K tasks "
                    "in this process (start-up, each child request, the parent's own work)")
    ap.add_argument("extra", nargs="*", help="arguments passed on to kreview audit (after --)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="kreview-audit-bench-") as tmp:
        folder = args.keep or Path(tmp) / "level1"
        write_level(folder, args.tasks, args.seed)
        if args.write_only:
            print(folder)
            return 0
        if args.profile:
            print(json.dumps(profile(folder, args.profile)))
            return 0
        cache_home = Path(tmp) / "cache"
        first, rc1, data1, err1 = run_audit(folder, cache_home, args.extra)
        second, rc2, data2, err2 = (run_audit(folder, cache_home, args.extra) if args.runs == 2
                                    else (first, rc1, data1, err1))
    audited = len(data1.get("tasks", []))
    errors = sum(any(f["kind"] == "audit_error" for f in t["findings"]) for t in data1.get("tasks", []))
    result = {
        "tasks": args.tasks, "audited": audited, "degenerate": sum(t["degenerate"] for t in data1.get("tasks", [])),
        "audit_errors": errors, "extra_args": args.extra,
        "first_s": round(first, 1), "first_tasks_per_min": round(60 * args.tasks / first, 1),
        "second_s": round(second, 1), "second_tasks_per_min": round(60 * args.tasks / second, 1),
        "runs": args.runs, "exit_codes": [rc1, rc2], "same_findings": _findings(data1) == _findings(data2),
        "loadavg_1m": round(os.getloadavg()[0], 2), "cpus": os.cpu_count(),
    }
    if audited != args.tasks:
        print(f"only {audited} of {args.tasks} tasks in the JSON; stderr:\n{err1}\n{err2}", file=sys.stderr)
    print(f"{args.tasks} tasks: first run {first:.1f} s ({result['first_tasks_per_min']} tasks/min), "
          f"cached rerun {second:.1f} s ({result['second_tasks_per_min']} tasks/min), "
          f"same findings: {result['same_findings']}, load {result['loadavg_1m']}")
    print(json.dumps(result))
    return 0 if audited == args.tasks else 1


if __name__ == "__main__":
    sys.exit(main())
