"""False positives: every correct kernel (tests/kernels/<family>/good_*.py) passes builds,
correctness, generality and numerics, with no failing evidence at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.kernelfiles import expectations, materialize
from tests.probekernels import family_files, review_file, verdicts

FILES = family_files("good_")


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_good_kernel_passes(path: Path, tmp_path: Path, config: ReviewConfig) -> None:
    review = review_file(path, tmp_path, config)
    want = expectations(path)
    got = verdicts(review)
    assert {k: got[k] for k in want} == want, [f"{e.id} {e.outcome}: {e.summary}" for e in review.evidence]
    assert not [e for e in review.evidence if e.outcome in ("fail", "unverified")]
    # the probes ran: generality searched sizes and layouts, numerics judged accuracy against float64
    gen = [e for e in review.evidence if e.tool == "generality" and e.outcome == "pass"]
    assert {e.summary.split(":", 1)[0] for e in gen} >= {"sizes", "layouts"}
    acc = [e for e in review.evidence if e.tool == "numerics" and e.summary.startswith("accuracy")]
    assert acc and acc[0].result["basis"] == "error_budget" and acc[0].result["error_budget"]["ok"]


def test_correct_reordered_sum_passes_through_the_error_budget(tmp_path: Path, config: ReviewConfig) -> None:
    """A correct K-blocked matmul leaves the fp32 table on near-zero outputs; the budget says it is
    as accurate as torch, so correctness passes on that basis (not by loosening the table)."""
    path = Path(__file__).parent / "kernels" / "matmul_longk" / "good_matmul_blocked_k.py"
    review = start_review(materialize(path, tmp_path / "sub"),
                          config.model_copy(update={"only": ["builds", "correctness"]}))
    items = [e for e in review.evidence if e.tool == "correctness"]
    assert items and all(e.outcome == "pass" for e in items)
    rescued = [e for e in items if e.result.get("basis") == "error_budget"]
    assert rescued, [e.summary for e in items]
    for e in rescued:
        assert e.result["comparison"]["ok"] is False and e.result["error_budget"]["ok"] is True
        assert e.result["error_budget"]["ratio"] < 8


@pytest.mark.slow
def test_a_dtype_refused_loudly_is_info_not_a_failure(tmp_path: Path, config: ReviewConfig) -> None:
    path = Path(__file__).parent / "kernels" / "elementwise" / "good_fp32_only_math.py"
    review = review_file(path, tmp_path, config)
    refused = [e for e in review.evidence if e.defect == "unsupported_dtype"]
    assert {e.tool for e in refused} == {"generality", "numerics"}, [f"{e.id}: {e.summary}" for e in review.evidence]
    assert all(e.outcome == "info" and "float16" in e.summary for e in refused)
