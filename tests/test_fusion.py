"""Fusion: each file under tests/kernels/fusion is placed where its docstring says (``Fusion:``) against
the reference chain rounded per operator, computed with float32 stages, and in float64; plus the rule
on hand-made tensors."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.kernelfiles import expectations, materialize, submissions
from tools.fusion import place

FILES = submissions("fusion")


def fusion_expectation(path: Path) -> str:
    for line in path.read_text().splitlines()[:20]:
        if line.startswith("Fusion:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{path} has no 'Fusion:' line")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_fusion_kernels(path: Path, tmp_path: Path, config: ReviewConfig) -> None:
    sub = materialize(path, tmp_path / "sub")
    review = start_review(sub, config.model_copy(update={"only": ["builds", "fusion"]}))
    got = {c.id: c.verdict for c in review.criteria}
    assert {k: got[k] for k in expectations(path)} == expectations(path)
    items = [e for e in review.evidence if e.tool == "fusion"]
    assert len(items) == 1 and items[0].outcome == "info", [e.summary for e in review.evidence]
    outs = items[0].result["outputs"]
    assert [o["verdict"] for o in outs] == [fusion_expectation(path)], items[0].summary
    assert outs[0]["native_vs_fp32_chain"] > 0


def test_place_rule() -> None:
    exact = torch.linspace(-3, 3, 1001, dtype=torch.float64) / 3.0
    fp32 = exact.float()
    native = (exact.half().double() * 1.0009765625).half()  # an extra rounding step's worth of error
    ok = place(fp32.half(), native, fp32, exact)["outputs"][0]
    assert ok["verdict"] == "fp32_intermediates"
    assert place(native.clone(), native, fp32, exact)["outputs"][0]["verdict"] == "rounds_like_unfused_chain"
    wrong = (exact * 1.5).half()
    assert place(wrong, native, fp32, exact)["outputs"][0]["verdict"] == "different_function"
