"""The model fixer end to end on a known-bad kernel no rule covers (the grid rounds n // BLOCK down, so the tail
is never launched): a scripted model's patch is rerun in the sandbox on a copy like a rule's; the right patch is
offered with its origin, a wrong one is dropped with the rerun's reason, and a model with nothing usable leaves a
note and the review as it was. One review (builds, correctness, generality: the tools that decide the failing
criterion), two sandbox reruns."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.core.config import ReviewConfig
from reviewer.core.errors import LLMTimeout
from reviewer.core.models import Review
from reviewer.fix import fix_review
from reviewer.llm import ScriptedModel
from tests.kernelfiles import KERNELS, expectations, materialize
from tests.reviewcache import ReviewCache

KERNEL = KERNELS / "elementwise" / "bad_tail_grid_floor.py"
TOOLS = ["builds", "correctness", "generality"]
LINES = KERNEL.read_text().splitlines()
IF = LINES.index("        if n >= 256:") + 1
LAUNCH = IF + 1
RIGHT = {"edits": [{"start_line": IF, "end_line": LAUNCH, "why": "launch a program for the tail too",
                    "replacement": "        if n > 0:\n"
                                   "            affine_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)"}],
         "summary": "launch cdiv(n, 256) programs so the last partial block is computed"}
# sizes below one block now work; a size past a multiple of 256 still loses its tail
WRONG = {"edits": [{"start_line": LAUNCH, "end_line": LAUNCH,
                    "replacement": "            affine_kernel[(max(n // 256, 1),)](x, y, n, BLOCK=256)"}],
         "summary": "launch at least one program"}


@pytest.fixture
def reviewed(tmp_path: Path, config: ReviewConfig, reviews: ReviewCache) -> tuple[Path, ReviewConfig, Review]:
    sub = materialize(KERNEL, tmp_path / "sub")
    cfg = config.model_copy(update={"only": TOOLS})
    review = reviews.review(sub, cfg)
    want = expectations(KERNEL)
    assert {c: review.criterion(c).verdict for c in TOOLS} == {c: want[c] for c in TOOLS}
    return sub, cfg, review


def _verdicts(review: Review) -> dict[str, str]:
    return {c.id: c.verdict for c in review.criteria} | {"overall": review.overall}


@pytest.mark.slow
def test_a_scripted_right_patch_is_verified_and_offered_as_the_models(reviewed) -> None:
    sub, cfg, review = reviewed
    before = _verdicts(review)
    model = ScriptedModel([RIGHT], name="scripted")
    report = fix_review(review, sub, cfg, model=model)
    (fix,) = report.fixes
    assert (fix.kind, fix.criterion, fix.origin) == ("llm_patch", "generality", "llm:scripted")
    assert "+            affine_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)" in fix.diff
    failing = {e.id for e in review.evidence if e.outcome == "fail" and "generality" in e.criteria}
    assert failing and failing <= {r.evidence for r in fix.reruns if r.before == "fail" and r.after == "pass"}
    assert not [r for r in fix.reruns if r.before == "pass" and r.after != "pass"]
    assert len(model.requests) == 1 and _verdicts(review) == before  # the model changed no verdict
    assert (sub / "submission.py").read_text() == KERNEL.read_text()


@pytest.mark.slow
def test_a_scripted_wrong_patch_is_dropped_with_the_reruns_reason(reviewed) -> None:
    sub, cfg, review = reviewed
    report = fix_review(review, sub, cfg, model=ScriptedModel([WRONG], name="scripted"))
    assert report.fixes == []
    (dropped,) = report.dropped
    assert (dropped.kind, dropped.origin) == ("llm_patch", "llm:scripted")
    assert "still fail" in dropped.why
    assert "no rule-based candidate" in report.note and "the model's patch was dropped too" in report.note


@pytest.mark.slow
@pytest.mark.parametrize("script", [["garbage", "more garbage"], [LLMTimeout("the model did not answer")]])
def test_a_model_without_a_usable_answer_leaves_a_note_and_the_review(reviewed, script) -> None:
    sub, cfg, review = reviewed
    before = review.model_dump()
    report = fix_review(review, sub, cfg, model=ScriptedModel(script, name="scripted"))
    assert report.fixes == [] and report.dropped == []
    assert report.notes and report.notes[0].startswith("fixer (generality): ")
    assert review.model_dump() == before
