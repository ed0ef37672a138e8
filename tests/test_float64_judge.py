"""The float64 judge for every reference kind (JAX references with x64 enabled in the reference
child, NumPy references on float64 inputs): a correct blocked fp32 matmul at K = 1024, outside the
element-wise fp32 default on a few percent of its elements, is judged by the error budget and
passes, in the TPU interpreter modes and the integrity probe's repeated calls too; a bf16
accumulation is still failed (tests/kernels/pallas_matmul*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.kernelfiles import expectations, materialize, submissions

FILES = submissions("pallas_matmul") + submissions("pallas_matmul_np")


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_float64_judge_for_jax_and_numpy_references(path: Path, tmp_path: Path, config: ReviewConfig) -> None:
    sub = materialize(path, tmp_path / "sub")
    want = expectations(path)
    tools = ["builds", "correctness"]
    if want["correctness"] == "pass" and path.parent.name == "pallas_matmul":
        # every other check that compares outputs judges by the same rule (TPU interpreter modes,
        # the integrity probe's repeated calls), so none of them fails the correct kernel either
        tools += ["sanitizers", "integrity_static", "integrity_runtime"]
    review = start_review(sub, config.model_copy(update={"only": tools, "seeds": 1}))
    got = {c.id: c.verdict for c in review.criteria}
    assert {k: got[k] for k in want} == want, [e.summary for e in review.evidence]
    ev = [e for e in review.evidence if e.tool == "correctness"]
    budgets = [e.result.get("error_budget") or {} for e in ev]
    # the verdict rests on a float64 run of the reference in both directions, never on its absence
    assert budgets and all(b.get("available") for b in budgets), budgets
    if want["correctness"] == "pass":
        assert all(e.result.get("basis") == "error_budget" for e in ev)
        assert not [e.summary for e in review.evidence if e.outcome in ("fail", "unverified")
                    and e.tool in ("sanitizers", "integrity_runtime")]
        assert all(b["ratio"] < 4 for b in budgets)
    else:
        assert all(b["ratio"] > 64 for b in budgets)


def test_jax_reference_runs_in_float64_under_the_judge() -> None:
    import jax.numpy as jnp
    import numpy as np
    import torch

    from tools.engine.harness import arrays

    x = jnp.asarray(np.ones(4, np.float32))
    with arrays.wide_floats("float64"):
        wide = arrays.cast(x, torch.float64) * 2
        assert wide.dtype == jnp.float64
    assert jnp.ones(2).dtype == jnp.float32  # the child's default is restored afterwards
    with arrays.wide_floats(None):
        assert arrays.cast(x, torch.float64).dtype == jnp.float32  # what happened before
