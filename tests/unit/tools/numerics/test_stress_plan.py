"""Which numerics stress cases a submission gets: the small-magnitude probe runs on float32 tasks and
not where its squares would leave float16's normal range."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tools.engine.harness.case import Case
from tools.numerics.stress_cases import PROBES, plan


def _plan(dtype: str) -> dict[str, Case]:
    sub = SimpleNamespace(format="kernelbench", dtype=None, root=str(Path(__file__).parent),
                          reference_file="missing_reference.py")
    ctx = SimpleNamespace(submission=sub, setup=SimpleNamespace(unfaithful=lambda d: "interpreter"))
    ref = SimpleNamespace(meta={"inputs": [{"shape": [16, 384], "dtype": dtype}]})
    base = SimpleNamespace(case=Case(id="nominal", seed=0), evaluation=SimpleNamespace(ref=ref))
    return {p.name: c for p, c in plan(ctx, base, {})}  # type: ignore[arg-type]


def test_small_magnitude_scales_float32_inputs_by_1e_minus_3() -> None:
    case = _plan("float32")["small_magnitude"]
    assert case.id == "numerics-small_magnitude"
    assert [(t.kind, t.args) for t in case.transforms] == [("scale", {"factor": 1e-3})]
    assert PROBES["small_magnitude"].mode == "correctness"  # the tolerance decides before the budget


def test_small_magnitude_is_not_run_on_float16_tasks() -> None:
    cases = _plan("float16")
    assert "small_magnitude" not in cases and "large_magnitude" in cases
