"""Typed results: each reader-facing tool declares its result model, readers find items by model (not by tool
name), and diagnosis runs after every tool whose results carry failures, found by model."""

from __future__ import annotations

from reviewer.core.models import Evidence
from tools.engine import registry
from tools.engine.results import CorrectnessResult, FailureDetails, JudgedResult, ResourcesResult


def _ev(i: str, tool: str, result: dict) -> Evidence:
    return Evidence(id=i, tool=tool, criteria=[], outcome="fail", summary=i, result=result)


def test_readers_find_items_by_model_and_read_them_typed() -> None:
    items = [_ev("c", "correctness", {"comparison": {"outputs": [{"path": "0", "max_abs_err": 0.5}]},
                                      "error_budget": {"available": True, "ratio": 3.0}, "extra": 1}),
             _ev("r", "resources", {"registers": 40, "occupancy": {"occupancy": 0.5, "limiter": "regs"}}),
             _ev("x", "fusion", {"registers": 99})]
    [(e, c)] = registry.results(items, CorrectnessResult)
    assert e.id == "c" and c.comparison.outputs[0].max_abs_err == 0.5 and c.error_budget.ratio == 3.0
    assert items[0].result["extra"] == 1  # the recorded mapping is kept as it was
    [(e, r)] = registry.results(items, ResourcesResult)
    assert e.id == "r" and r.registers == 40 and r.occupancy.occupancy == 0.5
    assert {e.id for e, _ in registry.results(items, JudgedResult)} == {"c"}
    assert {e.id for e, _ in registry.results(items, FailureDetails)} == {"c", "r"}


def test_diagnosis_runs_after_every_tool_that_records_failures() -> None:
    order = [c.name for c in registry.ordered_tools()]
    failing = [n for n, c in registry.tools().items() if c.result_model and issubclass(c.result_model, FailureDetails)]
    assert {"builds", "correctness", "resources", "benchmark", "memcheck"} <= set(failing)
    assert all(order.index(n) < order.index("diagnosis") for n in failing)


def test_diagnosis_reads_failures_of_any_failure_tool_by_model(tmp_path) -> None:
    from types import SimpleNamespace

    from tools.diagnosis import DiagnosisTool

    recorded: list[dict] = []
    sub = SimpleNamespace(source_files=[], root_path=tmp_path, submission_file="submission.py")
    ctx = SimpleNamespace(
        submission=sub, submission_span=lambda *a: [],
        evidence=[_ev("memcheck-1", "memcheck", {"error_type": "RuntimeError", "message": "CUDA out of memory"}),
                  _ev("fusion-1", "fusion", {"message": "CUDA out of memory"})],  # no FailureDetails model: not read
        add_evidence=lambda tool, **kw: recorded.append(kw) or SimpleNamespace(id="diagnosis-1"),
        add_finding=lambda **kw: None)
    DiagnosisTool().run(ctx)  # type: ignore[arg-type]
    assert [(r["defect"], r["result"]["diagnosed"]) for r in recorded] == [("out_of_memory", "memcheck-1")]
