"""The fixer end to end: a known-bad kernel's real review, a candidate rerun in the sandbox on a copy, the
verified patch offered with the cases it reran (one sandbox rerun; the review is shared with the
generality_numerics corpus of tests/e2e/test_kernel_verdicts.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.core.config import ReviewConfig
from reviewer.fix import fix_review
from tests.e2e.tools.test_generality_numerics import TOOLS as PROBE_TOOLS
from tests.kernelfiles import KERNELS, materialize
from tests.reviewcache import ReviewCache


@pytest.mark.slow
def test_missing_max_subtraction_gets_a_verified_fix(tmp_path: Path, config: ReviewConfig,
                                                     reviews: ReviewCache) -> None:
    sub = materialize(KERNELS / "softmax" / "bad_no_max_subtraction.py", tmp_path / "sub")
    before = (sub / "submission.py").read_text()
    review = reviews.review(sub, config.model_copy(update={"only": PROBE_TOOLS}))
    assert review.criterion("numerics").verdict == "fail"
    report = fix_review(review, sub, config.model_copy(update={"only": PROBE_TOOLS}))
    assert [(f.kind, f.criterion) for f in report.fixes] == [("max_subtraction", "numerics")], report
    fix = report.fixes[0]
    added = [x for x in fix.diff.splitlines() if x.startswith("+") and not x.startswith("+++")]
    assert added == ["+    x = x - tl.max(x, axis=0)"] and fix.lines_changed == 1
    fixed = {r.evidence for r in fix.reruns if r.before == "fail" and r.after == "pass"}
    assert {e.id for e in review.evidence if e.outcome == "fail" and "numerics" in e.criteria} <= fixed
    assert not [r for r in fix.reruns if r.before == "pass" and r.after != "pass"]
    assert {"correctness", "generality", "numerics"} <= set(fix.tools)
    assert (sub / "submission.py").read_text() == before  # verified on a copy, the submission untouched


@pytest.mark.slow
def test_a_candidate_that_does_not_fix_the_failure_is_dropped(tmp_path: Path, config: ReviewConfig,
                                                              reviews: ReviewCache) -> None:
    """The row index wraps at 65,536 programs (``% 65536``): the evidence names a wrap, so int64 program ids are
    tried; the crossing past 65,535 rows still fails on the patched copy, so nothing is offered."""
    sub = materialize(KERNELS / "large_grid" / "bad_program_id_wrap.py", tmp_path / "sub")
    # as the large_grid corpus of tests/e2e/test_kernel_verdicts.py reviews it (shared per session)
    cfg = config.model_copy(update={"only": ["builds", "correctness", "generality"], "budget": 0.2})
    review = reviews.review(sub, cfg)
    assert review.criterion("generality").verdict == "fail"
    report = fix_review(review, sub, cfg)
    assert report.fixes == []
    (dropped,) = report.dropped
    assert dropped.kind == "int64_offsets" and dropped.criterion == "generality"
    assert "still fail" in dropped.why and "generality" in dropped.why
    assert "no candidate verified" in report.note


@pytest.mark.slow
def test_a_float_stored_to_a_bool_output_gets_the_store_cast(tmp_path: Path, config: ReviewConfig,
                                                             reviews: ReviewCache) -> None:
    """Triton stores a float to a bool pointer as int8 (0.15 becomes False); the exact comparison fails on
    "integer elements", the store_cast candidate casts to int1 (!= 0) and its rerun passes every case. The
    good file beside it, cast on the store, gets no candidate. (Reviews shared with the bool_output corpus.)"""
    from tests.e2e.test_kernel_verdicts import CORPORA

    path = KERNELS / "bool_output" / "bad_store_without_cast.py"
    sub = materialize(path, tmp_path / "sub")
    cfg = CORPORA["bool_output"].config(path, config)
    review = reviews.review(sub, cfg)
    assert review.criterion("correctness").verdict == "fail"
    report = fix_review(review, sub, cfg)
    assert [(f.kind, f.criterion) for f in report.fixes] == [("store_cast", "correctness")], report
    fix = report.fixes[0]
    changed = [x for x in fix.diff.splitlines() if x[:1] in "+-" and x[:3] not in ("+++", "---")]
    assert changed == ["-    tl.store(out_ptr + offsets, both, mask=mask)",
                       "+    tl.store(out_ptr + offsets, both.to(out_ptr.dtype.element_ty), mask=mask)"]
    failing = {e.id for e in review.evidence if e.outcome == "fail"}
    assert failing and failing <= {r.evidence for r in fix.reruns if r.before == "fail" and r.after == "pass"}
    assert not [r for r in fix.reruns if r.before == "pass" and r.after != "pass"]

    good = KERNELS / "bool_output" / "good_store_cast_to_bool.py"
    gsub = materialize(good, tmp_path / "good")
    greview = reviews.review(gsub, CORPORA["bool_output"].config(good, config))
    assert greview.criterion("correctness").verdict == "pass"
    assert fix_review(greview, gsub, cfg).note == "no criterion failed: nothing to fix"
