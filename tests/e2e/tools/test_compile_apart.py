"""Compilers started at the plan (``Tool.start_apart``: the lowering tool's nvcc -ptx and resources' nvcc
-cubin on CUDA sources, in threads beside the tools before theirs) give the items the tools give when
they compile as they run: the same ids, outcomes, summaries, figures and kept files; only the time taken
may differ. Run on a small standalone CUDA file (no PyTorch headers, so nvcc takes a second)."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from reviewer.core.config import ReviewConfig
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.kernelfiles import without_timings
from tools.engine.runsetup import DeviceInfo
from tools.engine.tool import Tool
from tools.lowering import LoweringTool
from tools.resources import ResourcesTool

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")

KERNEL = """#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}

void scale(const float* x, float* y, float a, int n) {
    scale_kernel<<<(n + 255) / 256, 256>>>(x, y, a, n);
}
"""
REFERENCE = """import torch

def inputs(seed, n=1000):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(n, generator=g), 0.5]

def reference(x, a):
    return a * x
"""
MANIFEST = '[submission]\nfile = "scale.cu"\nentry = "scale"\n\n[reference]\nfile = "ref_fn.py"\n' \
           'entry = "reference"\ninputs = "inputs"\n'


def _items(sub_dir: Path, run_dir: Path, config: ReviewConfig, tools: list[Tool], apart: bool
           ) -> tuple[list[dict[str, Any]], set[str]]:
    """The tools' items from one context, each started at the plan first where ``apart``; and the names of
    the threads alive beside this one once they were started."""
    ctx = make_tool_context(load_submission(sub_dir), config, run_dir, 7, DeviceInfo(kind="cpu", name="cpu"))
    try:
        if apart:
            for tool in tools:
                tool.start_apart(ctx)
        started = {t.name for t in threading.enumerate()}
        for tool in tools:
            tool.run(ctx)
    finally:
        ctx.session.close()
    return [without_timings(e.model_dump(mode="json")) for e in ctx.evidence], started


def test_compilers_started_at_the_plan_give_the_same_items(tmp_path: Path, config: ReviewConfig) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "scale.cu").write_text(KERNEL)
    (sub / "ref_fn.py").write_text(REFERENCE)
    (sub / "kreview.toml").write_text(MANIFEST)
    apart, threads = _items(sub, tmp_path / "apart", config, [LoweringTool(), ResourcesTool()], apart=True)
    inline, _ = _items(sub, tmp_path / "inline", config, [LoweringTool(), ResourcesTool()], apart=False)
    assert {"kreview-lowering", "kreview-resources-nvcc"} <= threads
    assert apart == inline
    assert [(e["tool"], e["outcome"]) for e in apart] == \
        [("lowering", "pass"), ("resources", "pass"), ("resources", "pass")]
    assert {e["result"]["kernel"] for e in apart if e["tool"] == "resources"} == {"scale_kernel"}
