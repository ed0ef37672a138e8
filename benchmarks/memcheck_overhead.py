"""Slowdown of the Triton CPU sanitizer over the plain interpreter, and the memcheck tool's wall time.

    python benchmarks/memcheck_overhead.py [--reps 5] [--no-tool]

Part 1 runs a vector add (2^20 fp32, BLOCK=1024: 1024 programs) and a row softmax (256 x 1000 fp32,
BLOCK=1024: 256 programs) under TRITON_INTERPRET=1, plain and inside the ``triton_sanitizer``
instrument (interleaved), and prints the best and the median of ``--reps`` runs and their ratios. Part 2 times the whole
memcheck tool (sandbox children, nominal + boundary cases) on examples/softmax_triton.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch
import triton
import triton.language as tl

from tools.engine.harness.instruments import get


@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + offs, num / tl.sum(num, axis=0), mask=mask)


def vector_add() -> None:
    n = 1 << 20
    a, b = torch.randn(n), torch.randn(n)
    out = torch.empty(n)
    add_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)


def softmax() -> None:
    x = torch.randn(256, 1000)
    out = torch.empty_like(x)
    softmax_kernel[(256,)](out, x, x.stride(0), 1000, BLOCK=1024)


def one_run(fn, sanitize: bool) -> float:
    t0 = time.perf_counter()
    if sanitize:
        with get("triton_sanitizer")({}) as data:
            fn()
        assert data["violations"] == [] and data["launches"] == 1, data
    else:
        fn()
    return time.perf_counter() - t0


def timings(fn, reps: int) -> tuple[list[float], list[float]]:
    """Plain and sanitized runs interleaved, so load from other processes hits both alike."""
    plain, san = [], []
    for _ in range(reps):
        plain.append(one_run(fn, False))
        san.append(one_run(fn, True))
    return plain, san


def tool_time() -> tuple[float, list[str]]:
    from reviewer.core.config import ReviewConfig
    from reviewer.graph.context import make_tool_context
    from reviewer.ingest import load_submission
    from tools.engine.runsetup import DeviceInfo
    from tools.memcheck import MemcheckTool

    os.environ.pop("TRITON_INTERPRET", None)
    sub = load_submission(ROOT / "examples" / "softmax_triton")
    with tempfile.TemporaryDirectory() as tmp:
        ctx = make_tool_context(sub, ReviewConfig(seed=1, signoff=False, runs_dir=Path(tmp)), Path(tmp), 1,
                                DeviceInfo(kind="cpu", name="cpu"))
        t0 = time.perf_counter()
        try:
            MemcheckTool().run(ctx)
        finally:
            ctx.session.close()
        return time.perf_counter() - t0, [f"{e.outcome}: {e.summary[:110]}" for e in ctx.evidence]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--no-tool", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    for name, fn in (("vector add 2^20", vector_add), ("softmax 256x1000", softmax)):
        fn()  # warm the interpreter's rewrite cache
        plain, san = timings(fn, args.reps)
        lo_p, lo_s = min(plain), min(san)
        med_p, med_s = statistics.median(plain), statistics.median(san)
        print(f"{name:18s} best: plain {lo_p * 1e3:7.1f} ms, sanitized {lo_s * 1e3:7.1f} ms (x{lo_s / lo_p:.2f});"
              f" median: {med_p * 1e3:7.1f} / {med_s * 1e3:7.1f} ms (x{med_s / med_p:.2f})")
    if not args.no_tool:
        seconds, items = tool_time()
        print(f"memcheck tool on examples/softmax_triton: {seconds:.1f} s wall ({len(items)} evidence items)")
        for line in items:
            print("  ", line)


if __name__ == "__main__":
    main()
