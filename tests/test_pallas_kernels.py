"""Known-bad and known-good Pallas kernels (tests/kernels/pallas_*) get the verdicts their
docstrings name, through the interpreters, lowering and partial-block probes. False positives
(correct kernels must pass) are tested apart from false negatives (defects must be caught)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from reviewer.core.models import Review
from tests.kernelfiles import expectations, materialize, submissions

TOOLS = ["builds", "correctness", "lowering", "sanitizers", "pallas_padding", "generality"]
FILES = submissions("pallas_rowsum") + submissions("pallas_rowsum_int") + submissions("pallas_manifest_jnp")
GOOD = [p for p in FILES if p.stem.startswith("good")]
BAD = [p for p in FILES if not p.stem.startswith("good")]
# the defect code the TPU interpreter must name, beyond the verdicts
DEFECTS = {"bad_tiling": ("lowering", "tpu_block_tiling"), "dma_race": ("sanitizers", "race"), "oob_read": ("sanitizers", "oob_read"),
           "wrong_semantics": ("sanitizers", "mismatch"), "unmasked_tail": ("pallas_padding", "partial_block"),
           "unmasked_tail_int": ("pallas_padding", "partial_block"), "wrong_block_index": ("correctness", "mismatch")}


def _review(path: Path, tmp_path: Path, config: ReviewConfig) -> Review:
    sub = materialize(path, tmp_path / "sub")
    return start_review(sub, config.model_copy(update={"only": TOOLS, "seeds": 1}))


def _verdicts(review: Review, want: dict[str, str]) -> dict[str, str]:
    got = {c.id: c.verdict for c in review.criteria} | {"overall": review.overall}
    return {k: got[k] for k in want}


@pytest.mark.parametrize("path", GOOD, ids=[p.stem for p in GOOD])
def test_correct_pallas_kernel_passes(path: Path, tmp_path: Path, config: ReviewConfig) -> None:
    review = _review(path, tmp_path, config)
    want = expectations(path)
    assert _verdicts(review, want) == want, [e.summary for e in review.evidence]
    tpu = [e for e in review.evidence if e.tool == "sanitizers" and e.config.get("mode") == "tpu"]
    assert len(tpu) == 3 and all(e.outcome == "pass" for e in tpu)
    assert any(e.tool == "lowering" and e.outcome == "pass" and e.artifacts for e in review.evidence)


@pytest.mark.parametrize("path", BAD, ids=[p.stem for p in BAD])
def test_known_bad_pallas_kernel_is_caught(path: Path, tmp_path: Path, config: ReviewConfig) -> None:
    review = _review(path, tmp_path, config)
    want = expectations(path)
    assert _verdicts(review, want) == want, [e.summary for e in review.evidence]
    tool, defect = DEFECTS[path.stem]
    failing = [e for e in review.evidence if e.tool == tool and e.outcome == "fail"]
    assert any(e.defect == defect for e in failing), [e.summary for e in failing]
    assert all(e.rerun.startswith("kreview probe") for e in failing)
    if tool != "correctness":
        # interpret=True alone misses these on the nominal case: that is why the other checks exist
        plain = [e for e in review.evidence if e.tool == "correctness"]
        assert plain and all(e.outcome == "pass" for e in plain)
