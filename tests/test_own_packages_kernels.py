"""Submissions that ship their own ``tools``, ``reviewer`` or ``utils`` get their own modules, not
the reviewer's, and are judged on their merits (tests/kernels/own_packages)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.kernelfiles import expectations, materialize, submissions

FILES = submissions("own_packages")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_own_packages_kernel_verdicts(path: Path, tmp_path: Path, config: ReviewConfig) -> None:
    sub = materialize(path, tmp_path / "sub")
    review = start_review(sub, config.model_copy(update={"only_tools": ["builds", "correctness"]}))
    got = {c.id: c.verdict for c in review.criteria} | {"overall": review.overall}
    want = expectations(path)
    assert {k: got[k] for k in want} == want, [e.summary for e in review.evidence]
