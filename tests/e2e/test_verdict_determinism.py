"""Issue 16: verdicts that depend on the kernel alone.

- plans are counted (tools/engine/work_units.py), so the estimate of a many-program call scales with its program
  instances, not its elements, and its timeout is a generous backstop, not a hang verdict;
- no pass without coverage: a generality axis none of whose configurations ran is unverified,
  naming what was not tried; info items are not counted as checks;
- every rerun carries the seed (and budget), and reproduces its item bit for bit.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reviewer.api import start_review
from reviewer.cli import app
from reviewer.core.config import ReviewConfig
from reviewer.core.models import Evidence
from reviewer.rubric import CriterionSpec
from reviewer.rules import all_pass
from tests.kernelfiles import KERNELS, Reviewed, materialize
from tests.reviewcache import ReviewCache
from tools.engine.nominal_run import NominalRun, knob_ratios
from tools.engine.harness.case import Case
from tools.engine.work_units import WorkBudget, programs_of


def _baseline(programs: int, elements: int, seconds: float) -> NominalRun:
    return NominalRun(case=Case(id="n", seed=1), evaluation=None, elements=elements, seconds=seconds,  # type: ignore[arg-type]
                    programs=programs)


def test_many_program_call_is_estimated_by_programs_not_elements() -> None:
    # nominal: 128 rows x 4096 columns, one program per row, 0.5 s; the probe: 6,435 one-column rows
    base = _baseline(programs=programs_of([{"grid": [128, 1, 1]}]), elements=128 * 4096, seconds=0.5)
    assert base.programs == 128
    nominal = {"rows": 128, "cols": 4096}
    units = base.units(6435, knob_ratios(nominal, {"rows": 6435, "cols": 1}))
    assert units > 5 * base.nominal_units  # 6,435 programs cost far more than their 6,435 elements
    # the 16.5 s such a call took on a busy machine is inside the backstop (10x the estimate), not a hang
    assert 10 * base.estimate_s(units) > 16.5
    # counting its elements alone (as the old estimate did) makes it look cheaper than a nominal call
    assert base.estimate_s(base.units(6435)) < base.seconds < base.estimate_s(units) / 5


def test_a_timeout_is_a_hang_only_where_the_estimate_bounds_the_call() -> None:
    from tools.engine.outcomes import classify_failure
    from tools.engine.sandbox.worker import CallResult, ChildCrash

    call = CallResult(answered=False, crash=ChildCrash(kind="timeout", message="no answer in 15s"))
    common = {"interpreted": True, "input_numel": 4096, "on_cpu": True, "stage": "the call",
              "expected_s": 1.0, "timeout_s": 15.0}
    assert classify_failure(call, **common).defect == "hang"  # no larger than a measured run: stuck
    grown = classify_failure(call, **common, estimate_is_bound=False)  # larger in some size: maybe slow
    assert grown.outcome == "unverified" and grown.defect == "timeout"


def test_units_are_counts_and_shrinking_every_knob_shrinks_them() -> None:
    base = _baseline(programs=16, elements=16 * 16384, seconds=3.0)
    half = base.units(8 * 8192, knob_ratios({"b": 16, "d": 16384}, {"b": 8, "d": 8192}))
    assert half < base.nominal_units
    # the seconds measured never enter the units: a slower machine plans the same work
    slow = _baseline(programs=16, elements=16 * 16384, seconds=30.0)
    assert slow.nominal_units == base.nominal_units and slow.units(1000) == base.units(1000)


def test_work_budget_records_what_it_cut() -> None:
    b = WorkBudget(100.0)
    assert b.affords(60)
    b.spend(60)
    assert not b.affords(60) and b.record() == {"units": 100.0, "spent": 60.0, "cut": []}


def _ev(i: int, outcome: str) -> Evidence:
    return Evidence(id=f"t-{i}", tool="generality", criteria=["generality"], outcome=outcome,  # type: ignore[arg-type]
                    summary=f"item {i}")


def test_info_items_are_not_counted_as_checks() -> None:
    spec = CriterionSpec(id="generality", title="g", question="q", rule="all_pass")
    verdict, text = all_pass(spec, [_ev(1, "fail"), _ev(2, "pass"), _ev(3, "info"), _ev(4, "info")])
    assert verdict == "fail" and text.startswith("1 of 2 checks failed")


def _probe(argv: list[str]) -> list[dict[str, Any]]:
    res = CliRunner().invoke(app, [*argv, "--format", "json"])
    assert res.exit_code in (0, 1), (res.stdout, repr(res.exception))
    got = json.loads(res.stdout)
    tool = argv[argv.index("--tool") + 1]
    assert res.exit_code == int(any(g["outcome"] == "fail" for g in got if g["tool"] == tool))  # 1: still fails
    return got


@pytest.mark.slow
def test_axis_that_ran_nothing_is_unverified_and_names_what_was_not_tried(tmp_path: Path,
                                                                       config: ReviewConfig) -> None:
    sub = materialize(KERNELS / "softmax" / "good_softmax.py", tmp_path / "sub")
    # a budget too small for a single configuration: the plan runs nothing off the nominal case
    review = start_review(sub, config.model_copy(update={"only": ["builds", "correctness", "generality"],
                                                         "budget": 0.001}))
    gen = [e for e in review.evidence if e.tool == "generality"]
    assert review.criterion("generality").verdict == "unverified", [e.summary for e in gen]
    layouts = next(e for e in gen if e.summary.startswith("layouts"))
    assert layouts.outcome == "unverified" and layouts.defect == "not_covered"
    assert "0 of 5 planned layouts ran" in layouts.summary and "transposed inputs" in layouts.summary
    assert "--budget 0.001" in layouts.rerun and "--seed 1234" in layouts.rerun
    assert review.overall != "accept"


@pytest.mark.slow
def test_reruns_of_each_tool_reproduce_their_items_bit_for_bit(tmp_path: Path, config: ReviewConfig,
                                                               reviews: ReviewCache) -> None:
    """A persistent-loop softmax that assumes column stride 1 (accepted twice when a wall-clock budget
    spent itself on two passing layouts) fails even at a small budget: every layout runs before any
    size. One item of each kind is rerun from its command and compared."""
    sub = materialize(KERNELS / "softmax_plan" / "bad_persistent_col_stride.py", tmp_path / "sub")
    # the softmax_plan corpus's review of this file (tests/e2e/test_kernel_verdicts.py), shared per session
    review = reviews.review(sub, config.model_copy(update={"only": ["builds", "correctness", "generality",
                                                                          "numerics"], "budget": 0.15}))
    assert review.criterion("generality").verdict == "fail"
    items = [e for e in review.evidence if e.tool in ("correctness", "generality", "numerics")]
    assert all("--seed 1234" in e.rerun and "--budget 0.15" in e.rerun for e in items)

    def first(tool: str, outcome: str, case: bool) -> Evidence:
        return next(e for e in items if e.tool == tool and e.outcome == outcome and ("--case" in e.rerun) == case)

    picks = [first("correctness", "pass", True), first("generality", "fail", True),
             first("numerics", "pass", True), first("generality", "pass", False)]
    for item in picks:
        argv = shlex.split(item.rerun)
        got = _probe(argv[1:])
        if "--case" in argv:
            assert len(got) == 1, got
            again = got[0]
        else:  # a search item: the rerun repeats the whole plan; the same axis item comes back
            again = next(g for g in got if g["summary"].split(":")[0] == item.summary.split(":")[0])
        assert again["outcome"] == item.outcome and again["defect"] == item.defect, (item.summary, again["summary"])
        # a --case rerun repeats one case (its comparison); a search rerun repeats the plan (what it tried)
        for key in (("comparison", "error_budget") if "--case" in argv else ("search",)):
            if key not in item.result:
                continue
            mine = json.loads(json.dumps(item.result[key]))
            theirs = again["result"][key]
            if key == "search":  # durations differ between runs; what ran and how it judged may not
                mine = [(t["config"], t["verdict"]) for t in mine["tried"]]
                theirs = [(t["config"], t["verdict"]) for t in theirs["tried"]]
            assert theirs == mine, (item.id, key)


# The kernel families below are reviewed by tests/e2e/test_kernel_verdicts.py, which checks their verdicts
# and calls these checks on each review.


def check_device_dependent_branch(run: Reviewed) -> None:
    """softmax_plan, reviewed with builds, correctness, generality at budget 0.05: a device-dependent branch
    leaves generality unverified."""
    review = run.review
    if run.path.stem != "bad_cuda_only_path":
        return
    (item,) = [e for e in review.evidence if e.defect == "device_dependent_path"]
    assert item.outcome == "unverified" and item.spans and "x.is_cuda" in item.spans[0].quote
    assert "line 32: x.is_cuda" in item.summary


def check_gpumode_contract(run: Reviewed) -> None:
    """gpumode_contract, reviewed with builds, correctness, generality at budget 0.3: layouts the generator
    never produces are advisory; sizes it accepts are in scope."""
    path, review = run.path, run.review
    gen = [e for e in review.evidence if e.tool == "generality"]
    if path.stem.startswith("good_"):
        advisory = [e for e in gen if e.outcome == "info" and e.result.get("advisory")]
        # the flat kernel never writes the strided output's gaps: the generator's torch.empty buffer holds
        # NaN there (tools/engine/harness/defined_empty.py), on every run, not leftover right answers
        assert advisory and advisory[0].summary.startswith("layouts") and advisory[0].defect == "nonfinite_mismatch"
    else:
        failing = [e for e in gen if e.outcome == "fail"]
        assert failing and all(e.summary.startswith("sizes") for e in failing)


def check_fp16_reference_overflow(run: Reviewed) -> None:
    """rms_fp16, reviewed with builds, correctness, numerics: float64 judges where the fp16 reference overflows."""
    path, review = run.path, run.review
    num = [e for e in review.evidence if e.tool == "numerics"]
    large = next(e for e in num if e.inputs.get("case", {}).get("id") == "numerics-large_magnitude")
    if path.stem.startswith("good_"):
        assert large.outcome == "pass" and "float64 being the judge" in large.summary
        inexact = large.result["inexact_reference"]
        assert inexact[0]["positions"] > 0 and inexact[0]["examples"][0]["reference"] == "inf"
        assert isinstance(inexact[0]["examples"][0]["float64"], float)
    else:
        assert large.outcome == "fail"


def check_low_precision_accumulator(run: Reviewed) -> None:
    """mean_fp16, reviewed with builds, correctness, numerics: a low-precision accumulator is flagged and shown."""
    path, review = run.path, run.review
    num = [e for e in review.evidence if e.tool == "numerics"]
    flagged = [f for f in review.findings if f.category == "low_precision_accumulator"]
    if path.stem.startswith("good_"):
        assert not flagged
        return
    assert len(flagged) == 1 and "x_ptr.dtype.element_ty" in flagged[0].spans[0].quote
    ranged = next(e for e in num if e.inputs.get("case", {}).get("id") == "numerics-float16_range")
    assert ranged.outcome == "fail" and ranged.id in flagged[0].confirmed_by


def test_static_accumulator_check_reads_dtype_sources() -> None:
    from tools.numerics.accumulators import low_precision_accumulators

    bad = (KERNELS / "mean_fp16" / "bad_input_dtype_accumulator.py").read_text()
    (acc,) = low_precision_accumulators(bad)
    assert acc.name == "acc" and acc.follows_input and acc.dtype_text == "x_ptr.dtype.element_ty"
    assert low_precision_accumulators((KERNELS / "mean_fp16" / "good_fp32_accumulator.py").read_text()) == []
    # a store cast to the output's dtype is not an accumulator
    assert low_precision_accumulators((KERNELS / "softmax" / "good_softmax.py").read_text()) == []


def test_budget_out_of_range_is_a_usage_error(tmp_path: Path) -> None:
    for argv in (["review", str(tmp_path), "--budget", "0"], ["rerun", str(tmp_path), "--budget", "-1"],
                 ["probe", str(tmp_path), "--budget", "-1"]):  # probe: rerun's old name, still accepted
        res = CliRunner().invoke(app, argv)
        assert res.exit_code == 2 and "--budget" in res.output, res.output


def check_large_grid(run: Reviewed) -> None:
    """large_grid, reviewed with builds, correctness, generality at budget 0.2: the crossing past 65,535
    programs runs (windowed) and names the wrap or the refused launch with the size that produced it."""
    (item,) = [e for e in run.review.evidence if e.tool == "generality" and e.check.startswith(
        "generality: a grid past 65,535")]
    assert item.inputs["case"]["params"]["batch"] == 65537 and "--case" in item.rerun
    if run.path.stem == "bad_program_id_wrap":
        assert item.outcome == "fail" and item.defect == "program_id_wrap"
        assert item.result["tail"]["pid"][0] == 65536 and item.result["twin"]["pid"][0] == 0
    elif run.path.stem == "bad_grid_y_rows":
        assert item.outcome == "fail" and item.defect == "grid_limit"
        assert "grid dimension y = 65,537" in item.summary and "65,535" in item.summary
    else:
        assert item.outcome == "pass" and item.result["launches"][0]["grid"] == [65537, 1, 1]


def check_memory_state(run: Reviewed) -> None:
    """An address-keyed cache (tests/kernels/memory_state): integrity's in-place probe catches it, and
    no other check meets it (each of their inputs is at an address no earlier input had)."""
    r = run.review
    assert any(e.tool == "integrity_runtime" and e.outcome == "fail" and e.defect == "output_caching"
               for e in r.evidence), [e.summary for e in r.evidence if e.tool == "integrity_runtime"]
    assert not [e.summary for e in r.evidence if e.tool in ("correctness", "generality", "numerics")
                and e.outcome == "fail"]

