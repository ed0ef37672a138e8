"""Known-bad and known-good Pallas kernels (tests/kernels/pallas_*) get the verdicts their
docstrings name, through the interpreters, lowering and partial-block probes. False positives
(correct kernels must pass) are checked apart from false negatives (defects must be caught). The reviews
run in tests/e2e/test_kernel_verdicts.py, which calls ``check_pallas`` on each, and ``check_pallas_example``
on the bundled Pallas examples."""

from __future__ import annotations

from pathlib import Path

from reviewer.core.models import Review
from tests.kernelfiles import Reviewed

TOOLS = ["builds", "correctness", "lowering", "sanitizers", "pallas_padding", "generality"]
# the defect code the TPU interpreter must name, beyond the verdicts
DEFECTS = {"bad_tiling": ("lowering", "tpu_block_tiling"), "dma_race": ("sanitizers", "race"), "oob_read": ("sanitizers", "oob_read"),
           "wrong_semantics": ("sanitizers", "mismatch"), "unmasked_tail": ("pallas_padding", "partial_block"),
           "unmasked_tail_int": ("pallas_padding", "partial_block"), "wrong_block_index": ("correctness", "mismatch")}


def check_pallas(run: Reviewed) -> None:
    """Reviewed with ``TOOLS``, one seed (tests/e2e/test_kernel_verdicts.py): a correct kernel (``good*``)
    passes every TPU interpreter mode, a known-bad one is caught with the defect ``DEFECTS`` names."""
    if run.path.stem.startswith("good"):
        _check_correct(run.review)
    else:
        _check_caught(run.path, run.review)


def _check_correct(review: Review) -> None:
    tpu = [e for e in review.evidence if e.tool == "sanitizers" and e.config.get("mode") == "tpu"]
    assert len(tpu) == 3 and all(e.outcome == "pass" for e in tpu)
    assert any(e.tool == "lowering" and e.outcome == "pass" and e.artifacts for e in review.evidence)


def _check_caught(path: Path, review: Review) -> None:
    tool, defect = DEFECTS[path.stem]
    failing = [e for e in review.evidence if e.tool == tool and e.outcome == "fail"]
    assert any(e.defect == defect for e in failing), [e.summary for e in failing]
    assert all(e.rerun.startswith("kreview rerun") for e in failing)
    if tool != "correctness":
        # interpret=True alone misses these on the nominal case: that is why the other checks exist
        plain = [e for e in review.evidence if e.tool == "correctness"]
        assert plain and all(e.outcome == "pass" for e in plain)


def check_pallas_example(run: Reviewed) -> None:
    """The bundled Pallas examples, reviewed with ``TOOLS`` (tests/e2e/test_kernel_verdicts.py)."""
    review = run.review
    modes = {e.config.get("mode") for e in review.evidence if e.tool == "sanitizers"}
    assert modes == {"interpret", "tpu"}  # both interpreters reported
    lowered = [e for e in review.evidence if e.tool == "lowering" and e.outcome == "pass"]
    assert lowered and lowered[0].config["target"] == "tpu" and lowered[0].artifacts
