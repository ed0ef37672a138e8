"""Kernels written the way the public Triton tutorials write them (driver lookups for the device and
its properties, warmup-sized grids, multi-config autotune, torch.compile wrappers, is_cuda guards)
are reviewed as written: every file under tests/kernels/tutorial_softmax gets the verdicts its
docstring names (reviewed by tests/e2e/test_kernel_verdicts.py, which calls ``check_tutorial_kernel``)."""

from __future__ import annotations

from pathlib import Path

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.kernelfiles import Reviewed, materialize


def check_tutorial_kernel(run: Reviewed) -> None:
    """Reviewed with builds, correctness, autotune, one seed (tests/e2e/test_kernel_verdicts.py)."""
    path, review = run.path, run.review
    virtual = [e for e in review.evidence if e.defect == "virtual_device"]
    assert virtual, "the evidence must say which answers came from the virtual device"
    assert virtual[0].config["arch"] == "sm_90"
    if path.stem.startswith("bad_autotune"):
        wrong = [e for e in review.evidence if e.tool == "autotune" and e.outcome == "fail"]
        assert [e.inputs["config_index"] for e in wrong] == [2], [e.summary for e in wrong]


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
