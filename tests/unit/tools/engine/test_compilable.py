"""The engine's one rule for "anything to compile here" (tools/engine/compilable.py), the fact the
resources tool leaves (CompiledKernels) and the compiled_code tool reading it, and the probe chain
that runs resources before compiled_code when compiled_code is probed alone."""

from __future__ import annotations

import shutil
from pathlib import Path

from reviewer.core.config import ReviewConfig
from reviewer.core.models import Evidence
from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.conftest import EXAMPLES
from tools.engine.compilable import compilable, nothing_to_compile
from tools.engine.facts import CompiledKernel, CompiledKernels
from tools.engine.registry import backends, rerun_chain, tools
from tools.engine.tool import ToolContext

TORCH_ONLY = '''import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)
'''


def _torch_only(tmp_path: Path) -> Path:
    root = tmp_path / "torch_softmax"
    shutil.copytree(EXAMPLES / "softmax_triton", root)
    (root / "submission.py").write_text(TORCH_ONLY)
    return root


def _ctx(tmp_path: Path, root: Path) -> ToolContext:
    return make_tool_context(load_submission(root), ReviewConfig(seed=1), tmp_path / "run", 1, detect_device("cpu"))


def test_the_backend_says_whose_kernels_the_triton_compiler_compiles() -> None:
    flagged = sorted(name for name, b in backends().items() if b.triton_compiled)
    assert flagged == ["triton"]


def test_triton_and_cuda_c_are_something_to_compile_plain_torch_is_not(tmp_path: Path) -> None:
    triton = load_submission(EXAMPLES / "softmax_triton")
    assert nothing_to_compile(triton) is None and compilable(triton).triton
    cuda = load_submission(EXAMPLES / "scaled_add_cuda")
    assert nothing_to_compile(cuda) is None and compilable(cuda).cuda_sources
    torch_only = load_submission(_torch_only(tmp_path))
    why = nothing_to_compile(torch_only)
    assert why is not None and why.startswith("no Triton or CUDA C kernel to compile")
    assert not compilable(torch_only).anything
    # resources and compiled_code apply exactly where the rule finds something
    ctx = _ctx(tmp_path, _torch_only(tmp_path / "again"))
    assert tools()["resources"]().not_applicable(ctx) == tools()["compiled_code"]().not_applicable(ctx) == why


def test_resources_fact_names_the_kept_code_of_each_compiled_kernel() -> None:
    from tools.resources import compiled_kernels

    def item(n: int, artifacts: list[str]) -> Evidence:
        return Evidence(id=f"resources-{n}", tool="resources", criteria=["resources"], outcome="pass",
                        summary=f"item {n}", artifacts=artifacts)

    fact = compiled_kernels([item(1, ["a/sm_90/k.ttgir", "a/sm_90/k.ptx"]), item(2, []), item(3, ["c/k.sass"])])
    assert [(k.compiler, k.code, k.ptx, k.item.id) for k in fact.kernels] == [
        ("triton", "a/sm_90/k.ttgir", "a/sm_90/k.ptx", "resources-1"), ("nvcc", "c/k.sass", None, "resources-3")]
    assert fact.notes == ("item 1", "item 2", "item 3")


def test_compiled_code_reads_the_fact_resources_left(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path, EXAMPLES / "scaled_add_cuda")
    tool = tools()["compiled_code"]()
    tool.run(ctx)  # no fact: nothing was compiled
    assert [(e.outcome, e.defect) for e in ctx.evidence] == [("unverified", "no_compiled_code")]
    assert "the resources tool recorded nothing" in ctx.evidence[0].summary
    sass = ctx.artifact_dir("resources") / "k.sass"
    sass.write_text("        /*0040*/                   LDG.E.128 R4, [R2.64] ;\n"
                    "        /*0050*/                   HMMA.16816.F32 R8, R4, R6, R8 ;\n")
    measured = Evidence(id="resources-1", tool="resources", criteria=["resources"], outcome="pass", summary="k",
                        result={"kernel": "scaled_add"}, config={"target": "sm_90"},
                        artifacts=[str(sass.relative_to(ctx.run_dir))])
    ctx.facts.put(CompiledKernels(kernels=(CompiledKernel("nvcc", measured.artifacts[0], None, measured),),
                                  notes=("k",)))
    tool.run(ctx)
    read = ctx.evidence[-1]
    assert (read.id, read.outcome, read.check) == ("compiled_code-2", "info", "cuobjdump -sass (kept by resources-1)")
    assert read.result["tensor_core"] == {"HMMA.16816.F32": 1}
    assert read.summary.startswith("scaled_add on sm_90")


def test_a_rerun_of_compiled_code_runs_resources_first_others_run_alone() -> None:
    assert [c.name for c in rerun_chain("compiled_code")] == ["resources", "compiled_code"]
    assert [c.name for c in rerun_chain("task_audit")] == ["correctness", "task_audit"]
    assert [c.name for c in rerun_chain("correctness")] == ["correctness"]
    assert [c.name for c in rerun_chain("benchmark")] == ["benchmark"]


def test_every_needed_fact_is_left_by_a_tool_the_consumer_runs_after() -> None:
    """``Tool.needs`` names facts a tool among its ``after`` (transitively) leaves, so a review has them
    before the tool runs, and ``rerun_chain`` finds their producer."""
    table = tools()

    def upstream(name: str) -> set[str]:
        out: set[str] = set()
        for dep in table[name].after:
            if dep in table and dep not in out:
                out |= {dep} | upstream(dep)
        return out

    needing = {name: cls.needs for name, cls in table.items() if cls.needs}
    assert set(needing) >= {"compiled_code", "task_audit"}
    for name, needs in needing.items():
        left = {fact for dep in upstream(name) for fact in table[dep].leaves}
        assert set(needs) <= left, (name, needs)
