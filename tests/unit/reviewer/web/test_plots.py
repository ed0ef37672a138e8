"""The workbench's charts read typed results (tools/engine/results.py) of a scripted review: each chart is drawn
from the items whose tool declares the model it reads, with the numbers the tools recorded."""

from __future__ import annotations

from reviewer.core.models import Review
from reviewer.web.plots import charts_for


def _review() -> Review:
    ev = lambda i, tool, result, out="pass": {"id": i, "tool": tool, "criteria": [], "outcome": out,  # noqa: E731
                                             "summary": i, "result": result}
    budget = {"available": True, "ratio": 2.0, "outputs": [{"path": "0", "sub_max_err": 1e-3, "ref_max_err": 5e-4}]}
    return Review.model_validate({
        "run_id": "r", "status": "awaiting_signoff", "overall": "accept", "seed": 1, "created_at": "2026-12-04",
        "submission": {"root": "s", "format": "kernelbench", "framework": "triton", "reference_file": "reference.py",
                       "submission_file": "submission.py", "name": "s"},
        "criteria": [],
        "evidence": [
            ev("generality-1", "generality", {"search": {"axis": "shapes", "tried": [
                {"config": {"M": 16, "N": 32}, "verdict": "pass"}, {"config": {"M": 64, "N": 8}, "verdict": "fail"}]}}),
            ev("probes-1", "probes", {"error_budget": budget}),
            ev("resources-1", "resources", {"kernel": "k", "arch": "sm_90", "registers": 64, "threads_per_block": 256,
                                            "occupancy": {"occupancy": 0.5, "limiter": "registers"}}),
            ev("roofline-1", "roofline", {"bounds": {"h100": {"floor_us": 2.0, "roofline_us": 3.0}}}),
            ev("benchmark-1", "benchmark", {"summaries": {"submission/eager": {"median": 5e-6}}}),
            ev("fusion-1", "fusion", {"registers": 999, "search": {"tried": [{"config": {"M": 1}}]}}),
        ]})


def test_charts_read_typed_results() -> None:
    charts = {c.id: c for c in charts_for(_review())}
    assert set(charts) == {"chart-generality-1", "chart-error", "chart-resources", "chart-roofline"}
    tips = lambda cid: [s.tip for s in charts[cid].shapes if s.tip]  # noqa: E731
    assert any("M=64, N=8" in t and "fail" in t for t in tips("chart-generality-1"))
    assert any("64 of 255" in t for t in tips("chart-resources")) and not any("999" in t for t in tips("chart-resources"))
    assert any("occupancy" in t for t in tips("chart-resources"))
    assert any("h100 floor: 2 us" in t for t in tips("chart-roofline"))
    assert any("measured median 5 us" in t for t in tips("chart-roofline"))
    assert any("submission max abs error vs float64 0.001" in t for t in tips("chart-error"))
