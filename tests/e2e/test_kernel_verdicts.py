"""False negatives: every known-bad kernel (tests/kernels/<family>/bad_*.py) gets the verdicts its
docstring names, and each failing generality/numerics item carries the configuration that fails
and a ``kreview probe`` rerun of exactly that case."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.core.config import ReviewConfig
from tests.kernelfiles import expectations
from tests.probekernels import family_files, review_file, verdicts

FILES = family_files("bad_")


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_bad_kernel_is_caught(path: Path, tmp_path: Path, config: ReviewConfig) -> None:
    review = review_file(path, tmp_path, config)
    want = expectations(path)
    got = verdicts(review)
    assert {k: got[k] for k in want} == want, [f"{e.id} {e.outcome}: {e.summary}" for e in review.evidence]
    for crit in ("generality", "numerics"):
        if want.get(crit) != "fail":
            continue
        failing = [e for e in review.evidence if e.tool == crit and e.outcome == "fail"]
        assert failing
        for e in failing:
            assert e.defect and "--case" in e.rerun and e.inputs.get("case"), e
            assert e.inputs["case"]["id"].startswith(crit)
