"""The review plan is a model in the graph's state; the JSON that runs stored before (also before it
was a model) reads back as the same typed plan."""

from __future__ import annotations

from reviewer.core.models import Evidence, Finding, SourceSpan
from tools.engine.harness.case import Case
from tools.engine.review_plan import PlannedProbe, ProbeOrigin, ReviewPlan

SPAN = SourceSpan(file="submission.py", start_line=3, end_line=3, quote="x = 1")


def _probe() -> PlannedProbe:
    return PlannedProbe(case=Case(id="probe-1", seed=7, params={"cols": 131}, label="probe cols=131, seed 7"),
                        assumption="odd sizes", finding="F1", span=SPAN)


def test_an_offline_plan_stored_as_json_reads_back() -> None:
    """The JSON a run stored before the state held the plan as a model (keys as they were stored)."""
    plan = ReviewPlan(tools=["builds", "correctness"], skipped={"probes": "disabled (--skip)"})
    stored = {"tools": ["builds", "correctness"], "probes": [], "skipped": {"probes": "disabled (--skip)"}}
    assert ReviewPlan.model_validate(stored) == plan
    assert ReviewPlan.model_validate({}) == ReviewPlan()


def test_a_planners_plan_stored_as_json_reads_back_with_its_llm_keys() -> None:
    finding = Finding(id="F1", origin="llm", category="layout", message="assumes contiguous rows")
    plan = ReviewPlan(tools=["probes"], probes=[_probe()], llm_findings=[finding], llm_notes=["a note"])
    stored = {"tools": ["probes"], "probes": [_probe().model_dump(mode="json")], "skipped": {},
              "llm_findings": [finding.model_dump(mode="json")], "llm_notes": ["a note"]}
    back = ReviewPlan.model_validate(stored)
    assert back == plan and back.probes[0].case.params == {"cols": 131}


def test_a_stored_probe_with_its_old_criterion_key_reads_back() -> None:
    old = _probe().model_dump(mode="json") | {"criterion": "generality"}
    assert ReviewPlan.model_validate({"tools": [], "probes": [old], "skipped": {}}).probes == [_probe()]


def test_probe_origin_is_read_from_a_probes_evidence_item() -> None:
    origin = ProbeOrigin(assumption="odd sizes", finding="F1", span=SPAN)
    assert origin.model_dump() == {"assumption": "odd sizes", "finding": "F1", "proposed_by": "planner",
                                   "span": SPAN.model_dump()}
    ev = Evidence(id="probes-1", tool="probes", criteria=["generality"], outcome="fail", summary="s",
                  inputs={"probe": origin.model_dump()})
    assert ProbeOrigin.of(ev) == origin
    assert ProbeOrigin.of(ev.model_copy(update={"inputs": {}})) is None
