"""The facts the build check and the nominal-input check leave (tools/engine/facts.py: BuildOutcome,
NominalChecks) and the engine rules that read them instead of another tool's evidence by name:
``ToolContext.builds_failed`` and ``nominal_run.prerequisites_failed``."""

from __future__ import annotations

from pathlib import Path

from reviewer.core.config import ReviewConfig
from reviewer.core.models import Evidence
from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.conftest import EXAMPLES
from tools.engine.facts import BuildOutcome, NominalChecks
from tools.engine.harness.case import Case
from tools.engine.nominal_run import prerequisites_failed
from tools.engine.registry import tools
from tools.engine.tool import ToolContext


def _ctx(tmp_path: Path) -> ToolContext:
    return make_tool_context(load_submission(EXAMPLES / "softmax_triton"), ReviewConfig(seed=1), tmp_path / "run", 1,
                             detect_device("cpu"))


def _item(tool: str, outcome: str, **fields: object) -> Evidence:
    return Evidence(id=f"{tool}-1", tool=tool, criteria=[tool], outcome=outcome, summary="s", **fields)  # type: ignore[arg-type]


def test_builds_failed_reads_the_build_outcome_not_evidence_under_a_name(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    ctx.evidence.append(_item("builds", "fail"))  # an item under the name alone decides nothing
    assert not ctx.builds_failed()
    ctx.facts.put(BuildOutcome(items=(_item("builds", "pass"),), finished=True))
    assert not ctx.builds_failed()
    ctx.facts.put(BuildOutcome(items=(_item("builds", "unverified"),), finished=True))
    assert ctx.builds_failed()


def test_a_failed_nominal_check_stops_the_off_nominal_tools(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    generality = tools()["generality"]()
    assert not prerequisites_failed(ctx, generality, "sizes")  # no check ran: nothing stops it
    case = Case(id="c", seed=3).model_dump()
    ctx.facts.put(NominalChecks.of([_item("correctness", "pass", inputs={"case": case}, duration_s=0.5),
                                    _item("correctness", "fail", inputs={"case": case})]))
    assert prerequisites_failed(ctx, generality, "sizes")
    assert [(e.id, e.outcome, e.defect) for e in ctx.evidence] == [("generality-1", "unverified", "not_assessed")]


def test_nominal_checks_keep_case_time_and_error_budget_of_each_item() -> None:
    case = Case(id="c", seed=3).model_dump()
    budget = {"available": True, "ratio": 0.5}
    checks = NominalChecks.of([_item("correctness", "pass", inputs={"case": case}, duration_s=0.25,
                                     result={"error_budget": budget}),
                               _item("correctness", "unverified")])
    assert not checks.failed
    assert [(c.case, c.duration_s, c.error_budget) for c in checks.passed] == [(case, 0.25, budget)]
    assert checks.checks[1].case is None and checks.checks[1].error_budget is None


def test_tools_that_need_a_built_submission_read_the_build_outcome(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    assert ctx.setup.can_run
    broken = _item("builds", "fail", defect="import_error")
    ctx.facts.put(BuildOutcome(items=(broken,), finished=True))
    report, why = tools()["resources"]()._launches(ctx, Case(id="c", seed=1))  # type: ignore[attr-defined]
    assert report is None and why == "the submission did not run (s)"
    tools()["integrity_runtime"]().run(ctx)
    assert [(e.tool, e.outcome, e.defect) for e in ctx.evidence] == [("integrity_runtime", "unverified", "not_built")]
    ctx.facts.put(BuildOutcome(items=(), finished=False))  # the check broke off before recording anything
    tools()["integrity_runtime"]().run(ctx)
    assert ctx.evidence[-1].defect == "not_built" and "broke off" in ctx.evidence[-1].summary
