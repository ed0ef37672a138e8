"""Shared runner for the generality/numerics kernel families (tests/kernels/<family>/)."""

from __future__ import annotations

from pathlib import Path

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from reviewer.core.models import Review
from tests.kernelfiles import materialize, submissions

FAMILIES = ("elementwise", "softmax", "rowsum", "rowmean_loose", "layernorm", "matmul", "matmul_longk")
TOOLS = ["builds", "correctness", "generality", "numerics"]


def family_files(prefix: str) -> list[Path]:
    return [p for fam in FAMILIES for p in submissions(fam) if p.name.startswith(prefix)]


def review_file(path: Path, tmp: Path, config: ReviewConfig) -> Review:
    sub = materialize(path, tmp / "sub")
    return start_review(sub, config.model_copy(update={"only": TOOLS}))


def verdicts(review: Review) -> dict[str, str]:
    return {c.id: c.verdict for c in review.criteria} | {"overall": review.overall}
