"""Every file under tests/kernels/spine gets the verdicts its docstring names."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.kernelfiles import expectations, materialize, submissions

FILES = submissions("spine")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_spine_kernel_verdicts(path: Path, tmp_path: Path, config: ReviewConfig) -> None:
    sub = materialize(path, tmp_path / "sub")
    limits = config.limits.model_copy(update={"call_timeout_s": 10.0}) if path.stem == "hang" else config.limits
    review = start_review(sub, config.model_copy(update={"only": ["builds", "correctness"],
                                                         "limits": limits}))
    got = {c.id: c.verdict for c in review.criteria} | {"overall": review.overall}
    want = expectations(path)
    assert {k: got[k] for k in want} == want, [e.summary for e in review.evidence]
    # a fail is always explained by failing evidence, with a rerun command
    for c in review.criteria:
        if c.verdict == "fail":
            failing = [e for e in review.evidence if e.id in c.evidence and e.outcome == "fail"]
            assert failing and all(e.rerun for e in failing)
