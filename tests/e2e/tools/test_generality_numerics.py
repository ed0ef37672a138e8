"""The generality and numerics probes on the kernel families of tests/kernels (elementwise, softmax,
rowsum, rowmean_loose, layernorm, matmul, matmul_longk), reviewed by tests/e2e/test_kernel_verdicts.py with
``TOOLS``, which calls ``check_generality_numerics`` on each: a known-bad kernel (``bad_*``) is caught with
the configuration that fails and a ``kreview rerun`` rerun of exactly that case (no false negatives); a
correct one (``good_*``) passes builds, correctness, generality and numerics with no failing evidence at all
(no false positives)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.core.config import ReviewConfig
from reviewer.core.models import Review
from tests.kernelfiles import KERNELS, Reviewed, materialize
from tests.reviewcache import ReviewCache

TOOLS = ["builds", "correctness", "generality", "numerics"]


def check_generality_numerics(run: Reviewed) -> None:
    if run.path.stem.startswith("good_"):
        _check_correct(run.review)
    else:
        _check_caught(run.review, run.want)


def _check_caught(review: Review, want: dict[str, str]) -> None:
    for crit in ("generality", "numerics"):
        if want.get(crit) != "fail":
            continue
        failing = [e for e in review.evidence if e.tool == crit and e.outcome == "fail"]
        assert failing
        for e in failing:
            assert e.defect and "--case" in e.rerun and e.inputs.get("case"), e
            assert e.inputs["case"]["id"].startswith(crit)


def _check_correct(review: Review) -> None:
    assert not [e for e in review.evidence if e.outcome in ("fail", "unverified")]
    # the probes ran: generality searched sizes and layouts, numerics judged accuracy against float64
    gen = [e for e in review.evidence if e.tool == "generality" and e.outcome == "pass"]
    assert {e.summary.split(":", 1)[0] for e in gen} >= {"sizes", "layouts"}
    acc = [e for e in review.evidence if e.tool == "numerics" and e.summary.startswith("accuracy")]
    assert acc and acc[0].result["basis"] == "error_budget" and acc[0].result["error_budget"]["ok"]


def test_correct_reordered_sum_passes_through_the_error_budget(tmp_path: Path, config: ReviewConfig,
                                                              reviews: ReviewCache) -> None:
    """A correct K-blocked matmul leaves the fp32 table on near-zero outputs; the budget says it is
    as accurate as torch, so correctness passes on that basis (not by loosening the table). The review
    is the matmul_longk corpus's (``TOOLS``), shared per session."""
    path = KERNELS / "matmul_longk" / "good_matmul_blocked_k.py"
    review = reviews.review(materialize(path, tmp_path / "sub"), config.model_copy(update={"only": TOOLS}))
    items = [e for e in review.evidence if e.tool == "correctness"]
    assert items and all(e.outcome == "pass" for e in items)
    rescued = [e for e in items if e.result.get("basis") == "error_budget"]
    assert rescued, [e.summary for e in items]
    for e in rescued:
        assert e.result["comparison"]["ok"] is False and e.result["error_budget"]["ok"] is True
        assert e.result["error_budget"]["ratio"] < 8


@pytest.mark.slow
def test_a_dtype_refused_loudly_is_info_not_a_failure(tmp_path: Path, config: ReviewConfig,
                                                       reviews: ReviewCache) -> None:
    path = KERNELS / "elementwise" / "good_fp32_only_math.py"
    # the elementwise corpus's review of this file (shared per session)
    review = reviews.review(materialize(path, tmp_path / "sub"), config.model_copy(update={"only": TOOLS}))
    refused = [e for e in review.evidence if e.defect == "unsupported_dtype"]
    assert {e.tool for e in refused} == {"generality", "numerics"}, [f"{e.id}: {e.summary}" for e in review.evidence]
    assert all(e.outcome == "info" and "float16" in e.summary for e in refused)
