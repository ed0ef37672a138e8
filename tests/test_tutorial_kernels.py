"""Kernels written the way the public Triton tutorials write them (driver lookups for the device and
its properties, warmup-sized grids, multi-config autotune, torch.compile wrappers, is_cuda guards)
are reviewed as written: every file under tests/kernels/tutorial_softmax gets the verdicts its
docstring names."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.kernelfiles import expectations, materialize, submissions
from tools.engine.harness.virtual_gpu import spec_for

FILES = submissions("tutorial_softmax")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_tutorial_kernel_verdicts(path: Path, tmp_path: Path, config: ReviewConfig) -> None:
    sub = materialize(path, tmp_path / "sub")
    review = start_review(sub, config.model_copy(update={"only": ["builds", "correctness", "autotune"],
                                                         "seeds": 1}))
    got = {c.id: c.verdict for c in review.criteria} | {"overall": review.overall}
    want = expectations(path)
    assert {k: got[k] for k in want} == want, [e.summary for e in review.evidence]
    virtual = [e for e in review.evidence if e.defect == "virtual_device"]
    assert virtual, "the evidence must say which answers came from the virtual device"
    assert virtual[0].config["arch"] == "sm_90"
    if path.stem.startswith("bad_autotune"):
        wrong = [e for e in review.evidence if e.tool == "autotune" and e.outcome == "fail"]
        assert [e.inputs["config_index"] for e in wrong] == [2], [e.summary for e in wrong]


def test_virtual_device_follows_the_target() -> None:
    assert spec_for(None)["key"] == "H100"
    a100 = spec_for("A100")
    assert (a100["arch"], a100["properties"]["multiprocessor_count"]) == ("sm_80", 108)
    assert a100["properties"]["max_shared_mem"] == 166912  # gpu_limits.yaml, opt-in per block
    assert spec_for(None, ["sm_89"])["key"] == "L4"
    unknown = spec_for("no such gpu")
    assert unknown["key"] == "H100" and "not in the table" in unknown["chosen_by"]


@pytest.mark.parametrize("message", [
    "0 active drivers ([]). There should only be one.",
    "fatal error: c10/cuda/impl/cuda_cmake_macros.h: No such file or directory",
    "kernel.warmup() needs a CUDA device, or Triton's compiler and ptxas for sm_90, and they are not available here",
])
def test_environment_failures_are_unverified_with_a_remedy(message: str) -> None:
    from tools.engine.outcomes import classify_failure
    from tools.engine.sandbox import CallResult

    call = CallResult(answered=True, ok=False, error={"type": "RuntimeError", "message": message, "traceback": ""})
    c = classify_failure(call, interpreted=True, input_numel=10, on_cpu=True, stage="the call")
    assert (c.outcome, c.defect) == ("unverified", "needs_gpu")
    assert "virtual device" in c.reason and "--device cuda" in c.reason
    on_gpu = classify_failure(call, interpreted=False, input_numel=10, on_cpu=False, stage="the call")
    assert on_gpu.outcome == "fail"


def test_roofline_counts_a_cuda_reference_written_with_dot_cuda(tmp_path: Path, config: ReviewConfig) -> None:
    """A load_inline kernel cannot run on CPU, but its reference (KernelBench style, ``.cuda()``) can:
    the roofline counts its work instead of failing on the call."""
    from tests.kernelfiles import KERNELS

    sub = materialize(KERNELS / "resources_cuda" / "good_load_inline.py", tmp_path / "sub")
    ref = (sub / "reference.py").read_text().replace("torch.randn(batch_size, dim)",
                                                     "torch.randn(batch_size, dim).cuda()")
    (sub / "reference.py").write_text(ref)
    review = start_review(sub, config.model_copy(update={"only": ["roofline"]}))
    items = [e for e in review.evidence if e.tool == "roofline"]
    assert items and all(e.outcome == "info" for e in items), [e.summary for e in items]
