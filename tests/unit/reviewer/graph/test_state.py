"""The graph's typed state in its SQLite checkpoint: a run stopped at sign-off resumes with the same models
(stored by this version as models, by the previous one as JSON), and a checkpoint that no longer reads as
the state is a clear sign-off error, not a traceback from inside the graph. No tool runs here: the state
a run holds at the sign-off stop is written into the checkpoint directly."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from reviewer import api
from reviewer.core.config import ReviewConfig
from reviewer.core.errors import SignoffError
from reviewer.core.models import Claim, CriterionResult, Draft, DraftSection, Evidence, Finding
from reviewer.graph import build_graph
from reviewer.graph.nodes import assemble
from reviewer.graph.state import ReviewState, checkpoint_serde
from reviewer.ingest import load_submission
from reviewer.runs import checkpointer, create_run_dir, new_run_id, write_review
from tests.conftest import EXAMPLES
from tools.engine.review_plan import ReviewPlan

SOFTMAX = EXAMPLES / "softmax_triton"


def _stopped_state(runs: Path, run_id: str) -> ReviewState:
    """What a run holds when it stops for sign-off (one evidence item, one criterion, a draft)."""
    ev = Evidence(id="builds-1", tool="builds", criteria=["builds"], outcome="pass", summary="it ran",
                  result={"shape": [4, 8], "ratio": 0.5})
    crit = CriterionResult(id="builds", title="Builds and runs", verdict="pass", summary="ran", evidence=["builds-1"])
    draft = Draft(drafter="offline", headline=[Claim(text="it ran", evidence=["builds-1"])],
                  sections=[DraftSection(criterion="builds", verdict="pass", claims=[Claim(text="it ran",
                                                                                           evidence=["builds-1"])])],
                  markdown="# the draft\n")
    return ReviewState(run_id=run_id, run_dir=str(runs / run_id), root=str(SOFTMAX),
                       config=ReviewConfig(runs_dir=runs, seed=3), seed=3, created_at="2026-12-04T00:00:00+00:00",
                       started=0.0, submission=load_submission(SOFTMAX), plan=ReviewPlan(tools=["builds"]),
                       evidence=[ev], findings=[Finding(id="F1", category="layout", message="m")], criteria=[crit],
                       overall="accept", overall_reason="all required criteria passed", draft=draft,
                       status="awaiting_signoff", timings={"builds": 1.5})


def _stop_at_signoff(runs: Path, values: ReviewState | dict[str, Any], state: ReviewState) -> str:
    """A run folder whose checkpoint holds ``values`` and waits at the sign-off node, and its review.json."""
    run_dir = create_run_dir(runs, state.run_id)
    saver = checkpointer(run_dir, checkpoint_serde())
    try:
        graph = build_graph(saver, for_signoff=True)
        cfg = {"configurable": {"thread_id": state.run_id}}
        update = values if isinstance(values, dict) else {k: getattr(values, k) for k in values.model_fields_set}
        graph.update_state(cfg, update, as_node="record")
    finally:
        saver.conn.close()
    review = assemble(state, "awaiting_signoff")
    write_review(run_dir, review, review.draft.markdown if review.draft else "")
    return state.run_id


def test_the_checkpoint_holds_the_states_json_and_reads_back_as_the_models(tmp_path: Path,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    runs = tmp_path / "runs"
    state = _stopped_state(runs, new_run_id())
    _stop_at_signoff(runs, state, state)
    saver = checkpointer(runs / state.run_id, checkpoint_serde())
    with caplog.at_level(logging.WARNING):
        try:
            graph = build_graph(saver, for_signoff=True)
            values = graph.get_state({"configurable": {"thread_id": state.run_id}}).values
        finally:
            saver.conn.close()
    # plain JSON, as the previous version stored it: no class name for the checkpoint to import
    assert values["evidence"][0] == state.evidence[0].model_dump(mode="json") and isinstance(values["config"], dict)
    assert ReviewState.model_validate(values) == state
    assert not [r for r in caplog.records if "eserializ" in r.getMessage()], caplog.text


def test_a_run_stored_as_json_by_the_previous_version_is_signed_off(tmp_path: Path) -> None:
    """The previous version's checkpoint held every value as JSON (``model_dump(mode="json")``) under the
    same keys, the configuration included; the sign-off reads it into the typed state and publishes."""
    runs = tmp_path / "runs"
    state = _stopped_state(runs, new_run_id())
    old = state.model_dump(mode="json", exclude={"edited_markdown", "signoff", "llm"})
    _stop_at_signoff(runs, old, state)
    review = api.signoff(state.run_id, runs, approve=False, by="Ada", note="wrong", edited_markdown="# mine\n")
    assert review.status == "rejected" and review.signoff is not None
    assert (review.signoff.by, review.signoff.note, review.signoff.edited) == ("Ada", "wrong", True)
    assert review.draft is not None and review.draft.markdown == "# mine\n"
    assert review.evidence == state.evidence and review.criteria == state.criteria and review.timings == {"builds": 1.5}
    with pytest.raises(SignoffError, match="not awaiting sign-off"):
        api.signoff(state.run_id, runs, approve=True, by="Ada")


def test_a_run_this_version_signs_off_publishes_the_same_review(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    state = _stopped_state(runs, new_run_id())
    _stop_at_signoff(runs, state, state)
    review = api.signoff(state.run_id, runs, approve=True, by="Ada")
    assert review.status == "approved" and review.signoff is not None and not review.signoff.edited
    assert review.evidence == state.evidence and review.findings == state.findings
    assert "Kernel review" in (review.draft.markdown if review.draft else "")  # rendered again, not the stored text


def test_a_checkpoint_that_no_longer_reads_is_a_clear_signoff_error(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    state = _stopped_state(runs, new_run_id())
    old = state.model_dump(mode="json", exclude={"edited_markdown", "signoff", "llm"})
    old["evidence"][0]["outcome"] = "maybe"  # a value this version's models refuse
    _stop_at_signoff(runs, old, state)
    with pytest.raises(SignoffError, match=r"checkpoint does not read .* evidence\.0\.outcome"):
        api.signoff(state.run_id, runs, approve=True, by="Ada")
