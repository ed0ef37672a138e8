"""The bundled Pallas examples get the verdicts their submission docstrings name (the CUDA
examples are in test_cuda_backend.py: CPU behaviour here, run checks behind the GPU marker)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.conftest import EXAMPLES
from tests.kernelfiles import expectations

PALLAS = [EXAMPLES / "rowsum_pallas", EXAMPLES / "rowsum_pallas_buggy"]


@pytest.mark.parametrize("example", PALLAS, ids=[p.name for p in PALLAS])
def test_pallas_example_verdicts(example: Path, config: ReviewConfig) -> None:
    review = start_review(example, config.model_copy(update={
        "only": ["builds", "correctness", "lowering", "sanitizers", "pallas_padding", "generality"]}))
    want = expectations(example / "submission.py")
    got = {c.id: c.verdict for c in review.criteria} | {"overall": review.overall}
    assert {k: got[k] for k in want} == want, [e.summary for e in review.evidence]
    modes = {e.config.get("mode") for e in review.evidence if e.tool == "sanitizers"}
    assert modes == {"interpret", "tpu"}  # both interpreters reported
    lowered = [e for e in review.evidence if e.tool == "lowering" and e.outcome == "pass"]
    assert lowered and lowered[0].config["target"] == "tpu" and lowered[0].artifacts
