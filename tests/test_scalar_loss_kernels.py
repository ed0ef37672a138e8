"""A scalar output that ignores its inputs but sits inside a loose tolerance: caught across seeds
(correctness) and across input contents (integrity); the honest kernel passes both."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.kernelfiles import expectations, materialize, submissions

FILES = submissions("scalar_loss")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scalar_loss_verdicts(path: Path, tmp_path: Path, config: ReviewConfig) -> None:
    sub = materialize(path, tmp_path / "sub")
    review = start_review(sub, config.model_copy(update={"only": ["builds", "correctness", "integrity_runtime"]}))
    got = {c.id: c.verdict for c in review.criteria} | {"overall": review.overall}
    want = expectations(path)
    assert {k: got[k] for k in want} == want, [e.summary for e in review.evidence]
    if "constant" in path.stem:
        defects = {(e.tool, e.defect) for e in review.evidence if e.outcome == "fail"}
        assert ("correctness", "constant_output") in defects
        assert ("integrity_runtime", "constant_output") in defects
