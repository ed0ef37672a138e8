"""The planner's probes are data checked against what the harness can run (no code runs here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.device import detect_device
from reviewer.ingest import load_submission
from reviewer.core.models import SourceSpan
from tests.conftest import EXAMPLES
from tests.kernelfiles import KERNELS, materialize
from tools.engine.harness.case import Transform
from tools.engine.probe_requests import ProbeRequest, leaves_nominal, plan_probes, to_case


@pytest.fixture
def kb(tmp_path: Path):
    return load_submission(materialize(KERNELS / "llm" / "assumes_contiguous.py", tmp_path / "sub"))


@pytest.fixture
def gm():
    return load_submission(EXAMPLES / "gpumode_vectoradd")


def case(sub, interpreted=True, **fields):
    return to_case(ProbeRequest(assumption="a", **fields), sub, seed=7, index=1, interpreted=interpreted)


def test_size_constants_within_bounds_become_a_generality_case(kb) -> None:
    c = case(kb, params={"cols": 131})
    assert not isinstance(c, str)
    assert c.params == {"cols": 131} and c.seed == 7 and c.id == "probe-1"
    assert c.label == "probe cols=131, seed 7"  # the input in concrete terms, not the model's reasoning
    assert leaves_nominal(c, kb) is True


@pytest.mark.parametrize("params, why", [
    ({"BLOCK": 64}, "not among the reference's size constants"),
    ({"cols": 0}, "outside 1..400"),
    ({"cols": 401}, "outside 1..400"),
    ({"rows": 2.5}, "not an integer"),
    ({"rows": True}, "not an integer"),
])
def test_params_the_harness_cannot_run_are_refused(kb, params, why) -> None:
    got = case(kb, params=params)
    assert isinstance(got, str) and why in got


@pytest.mark.parametrize("transform, why", [
    (Transform(kind="teleport"), "unknown transform"),
    (Transform(kind="strided_slice", args={"step": 100}), "outside 2..8"),
    (Transform(kind="storage_offset", args={"offset": 1.5}), "outside 1..64"),
    (Transform(kind="scale", args={"factor": 1e9}), "outside |x|"),
    (Transform(kind="scale", args={"bogus": 2}), "takes no argument"),
    (Transform(kind="transpose_layout", args={"inputs": [-1]}), "input indices"),
])
def test_transforms_are_checked_against_the_registry_and_bounds(kb, transform, why) -> None:
    got = case(kb, transforms=[transform])
    assert isinstance(got, str) and why in got


def test_dtypes(kb, gm) -> None:
    assert isinstance(case(kb, dtype="int8"), str)
    assert "interpreter" in case(kb, dtype="bfloat16", interpreted=True)
    fp16 = case(kb, dtype="float16", transforms=[Transform(kind="strided_slice", args={"step": 2})])
    assert fp16.label == "probe dtype float16, strided_slice(step=2), seed 7"
    assert not isinstance(fp16, str) and leaves_nominal(fp16, kb) is True
    assert not isinstance(case(kb, dtype="bfloat16", interpreted=False), str)
    assert "generate_input" in case(gm, dtype="float32")


def test_nominal_inputs_under_a_new_seed_stay_nominal(kb, gm) -> None:
    assert leaves_nominal(case(kb), kb) is False
    assert leaves_nominal(case(kb, params={"cols": 200}), kb) is False
    g = case(gm, params={"size": 129})
    assert not isinstance(g, str) and g.params == {"size": 129, "seed": 7}  # run seed, not the public one
    assert leaves_nominal(g, gm) is False
    odd = case(gm, params={"size": 131})
    assert leaves_nominal(odd, gm) is True
    assert "not all generator arguments" in case(gm, params={"dtype_name": 3})
    assert leaves_nominal(case(kb, transforms=[Transform(kind="scale", args={"factor": 100.0})]), kb) is True


def test_plan_probes_drops_duplicates_over_limit_and_false_spans(kb) -> None:
    from reviewer.core.config import ReviewConfig
    from reviewer.graph.context import make_tool_context

    ctx = make_tool_context(kb, ReviewConfig(seed=1), Path("/nonexistent"), 1, detect_device("cpu"))
    try:
        good_span = SourceSpan(file="submission.py", start_line=16, end_line=16,
                               quote="x = tl.load(x_ptr + offs, mask=mask)")
        bad_span = good_span.model_copy(update={"quote": "tl.atomic_add"})
        reqs = [ProbeRequest(assumption="contiguous", transforms=[Transform(kind="transpose_layout")], span=good_span),
                ProbeRequest(assumption="same again", transforms=[Transform(kind="transpose_layout")]),
                ProbeRequest(assumption="not runnable", params={"BLOCK": 1}),
                ProbeRequest(assumption="bad span", params={"cols": 129}, span=bad_span),
                ProbeRequest(assumption="one too many", params={"rows": 1})]
        planned, dropped = plan_probes(reqs, ctx, limit=2)
    finally:
        ctx.session.close()
    assert [p.assumption for p in planned] == ["contiguous", "bad span"]
    assert planned[0].span == good_span and planned[1].span is None
    assert [p.case.id for p in planned] == ["probe-1", "probe-2"]
    assert planned[0].case.seed != planned[1].case.seed and planned[0].case.seed == ctx.seeds(2, "probes")[0]
    text = "\n".join(dropped)
    assert "same input as an earlier probe" in text and "source span was dropped" in text
    assert "BLOCK" in text and "over the limit of 2" in text
