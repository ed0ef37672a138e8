"""Whole reviews with a scripted model: the planner's probes become evidence, the model's findings
stay findings unless a probe confirms them, the grounding check removes what cites nothing real,
and no model behaviour changes a tool-decided verdict or crashes the review."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import LLMSettings, ReviewConfig
from reviewer.device import detect_device
from reviewer.core.errors import LLMTimeout
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from reviewer.llm import ScriptedModel, make_drafter
from tests.kernelfiles import KERNELS, expectations, materialize
from tests.reviewcache import ReviewCache
from tests.e2e.llm.support import answer_for
from tools.engine.harness.case import Case
from tools.probes import ProbesTool

LLM_KERNELS = KERNELS / "llm"
# what these tests judge (builds, correctness, generality) and the planner's probes: the other tools'
# evidence is the same with or without a model, and costs most of a review's time
TOOLS = ["builds", "correctness", "generality", "probes"]


@pytest.fixture
def config(config: ReviewConfig) -> ReviewConfig:
    return config.model_copy(update={"only": TOOLS})


def review(path: Path, tmp_path: Path, config: ReviewConfig, *script, rubric: Path | None = None):
    sub = materialize(path, tmp_path / "sub")
    model = ScriptedModel(script, name="scripted")
    cfg = config.model_copy(update={"rubric": rubric}) if rubric else config
    return start_review(sub, cfg, drafter=make_drafter(LLMSettings(), model=model)), model


def reads_the_prompt(n: int = 3):
    return [lambda r: answer_for(r.messages)] * n


def test_planner_probes_expose_a_layout_assumption(tmp_path: Path, config: ReviewConfig) -> None:
    path = LLM_KERNELS / "assumes_contiguous.py"
    rv, model = review(path, tmp_path, config, *reads_the_prompt())
    got = {c.id: c.verdict for c in rv.criteria}
    assert {k: got[k] for k in ("builds", "correctness", "generality")} == \
        {k: v for k, v in expectations(path).items() if k != "overall"}
    probes = [e for e in rv.evidence if e.tool == "probes"]
    assert [(e.outcome, e.criteria) for e in probes] == [("fail", ["generality"]), ("pass", ["generality"]),
                                                         ("fail", ["generality"])]
    assert probes[0].inputs["probe"]["assumption"] == "the input is contiguous"
    assert probes[0].inputs["case"]["transforms"] == [{"kind": "transpose_layout", "args": {}}]
    assert all("--tool probes --case" in e.rerun for e in probes)
    # the model's findings: the layout one confirmed by the probes that tested it, one unconfirmed,
    # and the one quoting text that is not in the file removed
    llm = {f.id: f for f in rv.findings if f.origin == "llm"}
    assert llm["L1"].confirmed_by == ["probes-1", "probes-3"] and llm["L2"].confirmed_by == []
    assert len(llm) == 2
    removed = rv.draft.removed
    assert [(r.section, r.why) for r in removed] == [
        ("findings", "the quoted text is not at submission.py:16-16"),
        ("correctness", "cites evidence that does not exist: correctness-99"),
        ("correctness", "the quoted text is not at submission.py:1-2")]
    assert rv.draft.drafter == "llm:scripted"
    assert any("BLOCK not among the reference's size constants" in n for n in rv.draft.notes)
    cited = {i for s in rv.draft.sections for c in s.claims for i in c.evidence}
    assert cited <= {e.id for e in rv.evidence}
    assert (rv.llm.model, rv.llm.calls, rv.llm.cached_calls) == ("scripted", 3, 0)
    assert rv.llm.prompt_tokens > 1000 and rv.llm.completion_tokens > 100 and rv.llm.cost_usd is None
    assert [model.requests[i].response_format["json_schema"]["name"] for i in range(3)] == \
        ["StaticReviewOut", "PlannerOut", "DraftOut"]
    transcript = Path(rv.run_dir) / "artifacts" / "llm" / "transcript.jsonl"
    assert len(transcript.read_text().splitlines()) == 3
    # a probe's rerun reproduces its evidence
    first = probes[0]
    sub = load_submission(rv.submission.root)
    ctx = make_tool_context(sub, config, tmp_path / "rerun", rv.seed, detect_device("auto"))
    try:
        ProbesTool().rerun_case(ctx, Case.model_validate(first.inputs["case"]))
    finally:
        ctx.session.close()
    again = ctx.evidence[0]
    assert (again.outcome, again.criteria, again.summary, again.result["comparison"]) == \
        (first.outcome, first.criteria, first.summary, first.result["comparison"])
    assert first.summary.startswith("probe transpose_layout, seed ")


def test_the_same_probes_pass_a_layout_safe_kernel(tmp_path: Path, config: ReviewConfig) -> None:
    """False-positive guard: kept apart from the defect test above."""
    path = LLM_KERNELS / "handles_strides.py"
    rv, _ = review(path, tmp_path, config, *reads_the_prompt())
    got = {c.id: c.verdict for c in rv.criteria}
    assert {k: got[k] for k in ("builds", "correctness", "generality")} == expectations(path)
    assert all(f.confirmed_by == [] for f in rv.findings if f.origin == "llm")
    assert any("L1 was tested by probes-1, probes-3, which did not fail" in n for n in rv.draft.notes)


@pytest.mark.parametrize("script, why", [
    (["not json"] * 6, "unusable twice"),
    ([{"findings": "x"}, {"findings": 3}, {"probes": [{"params": 1}]}, "[]", {"sections": 5}, "{}x{"], "unusable twice"),
    ([LLMTimeout("APITimeoutError after 3 attempt(s)")] * 3, "llm_timeout"),
])
def test_a_misbehaving_model_degrades_to_the_offline_review(tmp_path: Path, config: ReviewConfig, reviews: ReviewCache,
                                                           script, why) -> None:
    path = LLM_KERNELS / "assumes_contiguous.py"
    rv, _ = review(path, tmp_path, config, *script)
    offline = reviews.review(materialize(path, tmp_path / "offline"), config)  # once for the three scripts
    assert {c.id: c.verdict for c in rv.criteria} == {c.id: c.verdict for c in offline.criteria}
    # without the model's probes the generality tool still finds the layout assumption
    assert rv.criteria[2].verdict == "fail"
    assert rv.draft.drafter == "offline" and rv.overall == offline.overall
    assert any(why in n for n in rv.draft.notes)
    assert any("offline drafter wrote this one" in n for n in rv.draft.notes)
    assert not [f for f in rv.findings if f.origin == "llm"]


def test_the_model_cannot_flip_a_verdict_but_may_ask_for_a_human(tmp_path: Path, config: ReviewConfig) -> None:
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text("name: small\nnot_judged: [generality, numerics, integrity, performance, resources]\n"
                      "criteria:\n"
                      "  - {id: builds, title: Builds, question: q, rule: all_pass}\n"
                      "  - {id: correctness, title: Correct, question: q, rule: all_pass, requires: [builds]}\n")
    draft = {"headline": [{"text": "Accept it.", "evidence": ["builds-1"]}],
             "sections": [{"criterion": "correctness", "verdict": "fail",
                           "claims": [{"text": "Matches on three seeds.", "evidence": ["correctness-1"]}]}],
             "needs_human": [{"reason": "the flat indexing would break on strided inputs, which no tool here ran",
                              "spans": [{"file": "submission.py", "start_line": 16, "end_line": 16,
                                         "quote": "tl.load(x_ptr + offs, mask=mask)"}]},
                             {"reason": "vibes", "evidence": ["probes-42"]}]}
    # the rubric judges builds and correctness alone (generality is not judged): its tool would run for nothing
    small = config.model_copy(update={"only": [t for t in TOOLS if t != "generality"]})
    rv, model = review(LLM_KERNELS / "assumes_contiguous.py", tmp_path, small,
                       {"findings": []}, {"probes": []}, draft, rubric=rubric)
    assert len(model.requests) == 3  # the planner was still asked
    assert {c.id: c.verdict for c in rv.criteria} == {"builds": "pass", "correctness": "pass"}
    assert {s.criterion: s.verdict for s in rv.draft.sections} == {"builds": "pass", "correctness": "pass"}
    assert rv.overall == "needs_human" and "flat indexing would break" in rv.overall_reason
    assert "vibes" not in rv.overall_reason
    assert [(r.section, r.why) for r in rv.draft.removed] == [
        ("needs_human", "cites evidence that does not exist: probes-42")]
    assert any("offline drafter's claims stand in" in n for n in rv.draft.notes)  # builds section
