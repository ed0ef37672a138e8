"""ToolContext.add_evidence: an item names only criteria its tool declares (Tool.criteria), and a
tool that names another is a bug the graph records as an unverified tool_error item."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from reviewer.core.config import ReviewConfig
from reviewer.core.errors import ToolError
from reviewer.device import detect_device
from reviewer.graph.context import RunContext, make_tool_context
from reviewer.graph.nodes import make_tool_node
from reviewer.graph.state import ReviewState
from reviewer.ingest import load_submission
from tests.conftest import EXAMPLES
from tools.engine.review_plan import ReviewPlan
from tools.engine.tool import Tool, ToolContext

SOFTMAX = EXAMPLES / "softmax_triton"


def _state(**update: object) -> ReviewState:
    """The state a tool node sees once ingest and plan ran (plan: only ``one_criterion``)."""
    return ReviewState(run_id="r", root=str(SOFTMAX), config=ReviewConfig(seed=1), seed=1, created_at="now",
                       started=0.0, submission=load_submission(SOFTMAX), plan=ReviewPlan(tools=["one_criterion"]),
                       **update)


class _OneCriterion(Tool):
    name = "one_criterion"
    criteria = ("correctness",)

    def run(self, ctx: ToolContext) -> None:
        ctx.add_evidence(self, criteria=["performance"], outcome="pass", summary="claims a criterion it lacks")


def _ctx(tmp_path: Path) -> ToolContext:
    return make_tool_context(load_submission(SOFTMAX), ReviewConfig(seed=1), tmp_path / "run", 1,
                             detect_device("cpu"))


def test_items_name_only_declared_criteria(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    tool = _OneCriterion()
    assert ctx.add_evidence(tool, outcome="pass", summary="default").criteria == ["correctness"]
    with pytest.raises(ToolError) as err:
        ctx.add_evidence(tool, criteria=["correctness", "performance"], outcome="pass", summary="stray")
    assert err.value.status == "tool_error"
    assert [e.id for e in ctx.evidence] == ["one_criterion-1"]


def test_items_are_recorded_only_by_the_tool_itself_never_under_a_name(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)  # even a registered tool's name is refused: a tool records under its own name only
    for name in ("roofline", "no_such_tool"):
        with pytest.raises(ToolError, match="not under the name"):
            ctx.add_evidence(name, criteria=[], outcome="info", summary="under another's name")  # type: ignore[arg-type]
    assert ctx.evidence == []


def test_the_graph_records_the_bug_as_an_unverified_tool_error(tmp_path: Path) -> None:
    rc = RunContext(run_dir=tmp_path / "run")
    try:
        update = make_tool_node(_OneCriterion)(_state(), SimpleNamespace(context=rc))  # type: ignore[arg-type]
    finally:
        rc.close()
    (item,) = update["evidence"]
    assert (item.outcome, item.defect, item.criteria) == ("unverified", "tool_error", ["correctness"])
    assert "ToolError" in item.summary


class _Writes(Tool):
    name = "one_criterion"
    criteria = ("correctness",)

    def run(self, ctx: ToolContext) -> None:
        ctx.add_evidence(self, outcome="pass", summary="writes a tuple", result={"shape": (4, 8)})


class _Reads(Tool):
    name = "one_criterion"
    criteria = ("correctness",)
    seen: list[object] = []

    def run(self, ctx: ToolContext) -> None:
        _Reads.seen.append(ctx.evidence[0].result["shape"])
        _Reads.seen.append(ctx.evidence[0])


def test_a_later_node_sees_what_a_resumed_run_reads_back_without_reloading(tmp_path: Path) -> None:
    """Evidence crosses tool nodes as the models the context already holds (nothing converts the list per
    node), holding its mappings in the form the checkpoint gives back: a resumed run sees the same."""
    state = _state()
    rc, resumed = RunContext(run_dir=tmp_path / "run"), RunContext(run_dir=tmp_path / "run")
    _Reads.seen = []
    try:
        update = make_tool_node(_Writes)(state, SimpleNamespace(context=rc))  # type: ignore[arg-type]
        (written,) = update["evidence"]
        assert written.result == {"shape": [4, 8]}
        state = state.model_copy(update={"evidence": update["evidence"], "findings": update["findings"]})
        held = rc.tool_context(state).evidence[0]
        assert held is written
        make_tool_node(_Reads)(state, SimpleNamespace(context=rc))  # type: ignore[arg-type]
        stored = ReviewState.model_validate(state.model_dump(mode="json"))  # as a stored run reads back
        make_tool_node(_Reads)(stored, SimpleNamespace(context=resumed))  # type: ignore[arg-type]
    finally:
        rc.close()
        resumed.close()
    in_run, same_object, after_resume, _ = _Reads.seen
    assert in_run == after_resume == [4, 8]
    assert same_object is held  # not rebuilt from the state


class _NkiOnly(Tool):
    name = "nki_only"
    criteria = ("correctness",)
    frameworks = ("nki",)

    def run(self, ctx: ToolContext) -> None: ...


class _TritonAnywhere(_NkiOnly):
    frameworks = ("triton", "nki")
    mixed = True

    def applies(self, ctx: ToolContext) -> str | None:
        return "its own reason"


def test_a_tool_for_one_framework_says_so_without_a_branch(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)  # softmax_triton: a Triton submission
    try:
        assert ctx.submission.framework == "triton"
        assert _NkiOnly().not_applicable(ctx) == "nki_only reads nki kernels; this submission is triton"
        assert _TritonAnywhere().not_applicable(ctx) == "its own reason"  # framework matches: applies() decides
        ctx.submission = ctx.submission.model_copy(update={"framework": "cuda", "frameworks_seen": ["cuda", "triton"]})
        assert _TritonAnywhere().not_applicable(ctx) == "its own reason"  # mixed: a Triton kernel beside CUDA
        assert _NkiOnly().not_applicable(ctx) is not None
    finally:
        ctx.session.close()


def test_the_registry_refuses_a_tool_for_a_framework_no_backend_runs() -> None:
    from tools.engine.registry import backends, check_frameworks, tools

    check_frameworks(tools(), backends())  # the built-in tools name only registered frameworks
    class _Typo(_NkiOnly):
        frameworks = ("tritn",)
    with pytest.raises(ToolError, match="tritn"):
        check_frameworks({"typo": _Typo}, backends())


def test_the_registry_refuses_a_tool_that_starts_ahead_after_no_tool() -> None:
    from tools.engine.registry import check_ahead, tools

    table = tools()
    check_ahead(table)  # the built-in tools name registered tools
    assert {n: c.ahead_after for n, c in table.items() if c.ahead_after} == {"integrity_runtime": "generality",
                                                                          "memcheck": "generality",
                                                                          "resources": "correctness"}
    class _Typo(_NkiOnly):
        ahead_after = "generalty"
    with pytest.raises(ToolError, match="generalty"):
        check_ahead({**table, "typo": _Typo})
