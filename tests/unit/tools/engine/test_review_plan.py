"""The review plan crosses the graph's state as JSON in the keys stored runs have, and reads back
(also from runs stored before it was a model) as the same typed plan."""

from __future__ import annotations

from reviewer.core.models import Evidence, Finding, SourceSpan
from tools.engine.harness.case import Case
from tools.engine.review_plan import PlannedProbe, ProbeOrigin, ReviewPlan

SPAN = SourceSpan(file="submission.py", start_line=3, end_line=3, quote="x = 1")


def _probe() -> PlannedProbe:
    return PlannedProbe(case=Case(id="probe-1", seed=7, params={"cols": 131}, label="probe cols=131, seed 7"),
                        assumption="odd sizes", finding="F1", span=SPAN)


def test_an_offline_plan_stores_only_tools_probes_and_skipped() -> None:
    plan = ReviewPlan(tools=["builds", "correctness"], skipped={"probes": "disabled (--skip)"})
    stored = plan.to_state()
    assert stored == {"tools": ["builds", "correctness"], "probes": [], "skipped": {"probes": "disabled (--skip)"}}
    assert ReviewPlan.from_state(stored) == plan
    assert ReviewPlan.from_state(None) == ReviewPlan() == ReviewPlan.from_state({})


def test_a_planners_plan_round_trips_with_its_llm_keys() -> None:
    plan = ReviewPlan(tools=["probes"])
    plan.llm_notes = ["the source-reading model failed: x"]
    assert set(plan.to_state()) == {"tools", "probes", "skipped", "llm_notes"}
    finding = Finding(id="F1", origin="llm", category="layout", message="assumes contiguous rows")
    plan.probes, plan.llm_findings = [_probe()], [finding]
    stored = plan.to_state()
    assert set(stored) == {"tools", "probes", "skipped", "llm_findings", "llm_notes"}
    assert stored["probes"][0]["case"]["params"] == {"cols": 131} and stored["llm_findings"][0]["id"] == "F1"
    back = ReviewPlan.from_state(stored)
    assert back.probes == [_probe()] and back.llm_findings == [finding]


def test_a_stored_probe_with_its_old_criterion_key_reads_back() -> None:
    old = _probe().model_dump(mode="json") | {"criterion": "generality"}
    assert ReviewPlan.from_state({"tools": [], "probes": [old], "skipped": {}}).probes == [_probe()]


def test_probe_origin_is_read_from_a_probes_evidence_item() -> None:
    origin = ProbeOrigin(assumption="odd sizes", finding="F1", span=SPAN)
    assert origin.model_dump() == {"assumption": "odd sizes", "finding": "F1", "proposed_by": "planner",
                                   "span": SPAN.model_dump()}
    ev = Evidence(id="probes-1", tool="probes", criteria=["generality"], outcome="fail", summary="s",
                  inputs={"probe": origin.model_dump()})
    assert ProbeOrigin.of(ev) == origin
    assert ProbeOrigin.of(ev.model_copy(update={"inputs": {}})) is None
