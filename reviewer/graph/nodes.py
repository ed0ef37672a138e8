"""The graph's nodes. Each takes the typed state (reviewer/graph/state.py) and the runtime context and
returns a state update: a mapping of the state's fields to the typed values they take."""

from __future__ import annotations

import platform
import time
import traceback
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from reviewer import __version__
from reviewer.drafting.grounding import ground
from reviewer.drafting.offline import draft_offline
from reviewer.drafting.render import render_markdown
from reviewer.graph.context import RunContext, setup_for
from reviewer.ingest import load_submission
from reviewer.core.task import task_of
from reviewer.core.models import LLMUsage, Review, SignoffRecord
from reviewer.graph.state import ReviewState
from reviewer.progress import ToolFinished, ToolStarted, outcome_summary
from tools.engine.review_plan import ReviewPlan
from reviewer.rubric import judge, load_rubric, overall, prerequisite_tools
from reviewer.runs import write_review
from tools.engine.sandbox.isolation import isolation

if TYPE_CHECKING:  # the tools (and torch) load only where a review runs (not for sign-off)
    from collections.abc import Callable

    from tools.engine.tool import Tool


def _versions() -> dict[str, str]:
    out = {"kernel-reviewer": __version__, "python": platform.python_version()}
    for pkg in ("torch", "triton", "jax", "langgraph"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "absent"
    return out


def _sandbox_environment() -> dict[str, Any]:
    """The isolation in force, as measured inside a sandboxed child (tools/engine/sandbox/isolation.py)."""
    iso = isolation()
    out: dict[str, Any] = {"sandbox_isolation": iso.description, "sandbox": iso.measured}
    if iso.unsafe:
        out["unsafe_no_sandbox"] = True
    return out


def ingest(state: ReviewState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    rc = runtime.context
    rc.progress("reading the submission")
    config = state.config
    if rc.submission is None:
        rc.submission = load_submission(state.root, config.format_hint, config.target_gpu)
    sub = rc.submission
    device = rc.device(config)
    setup = setup_for(sub, device)
    env = {"device": device.name, "device_kind": device.kind, "run_setup": setup.note or "native",
           "platform": platform.platform(), "versions": _versions(),
           "limits": config.limits.describe(), **_sandbox_environment()}
    return {"submission": sub, "environment": env}


def plan(state: ReviewState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    from tools.engine.own_threads import compute_on_one_thread

    rc = runtime.context
    config = state.config
    ctx = rc.tool_context(state)
    compute_on_one_thread()
    # Rationale: a tool the user switched off says nothing about the submission, so its criteria
    # stay unverified; only a tool that does not apply to this submission makes one not_applicable.
    chosen, skipped, not_applicable = [], {}, {}
    only, update = config.only, {}
    if only is not None:  # --only: with the tools its criteria need to be judged at all (and said so)
        from tools.engine.registry import declared_criteria

        rubric = rc.rubric or load_rubric(config.rubric, tools=declared_criteria())
        added = {t: why for t, why in prerequisite_tools(rubric, only, declared_criteria()).items()
                 if t not in config.skip}
        only = [*only, *added]
        if added:
            note = "; ".join(f"{t} ({why})" for t, why in added.items())
            update["environment"] = {**state.environment, "selection": f"--only also ran {note}"}
    from tools.engine.registry import ordered_tools

    for cls in ordered_tools():
        name = cls.name
        if only is not None and name not in only:
            skipped[name] = "not selected (--only)"
            continue
        if name in config.skip:
            skipped[name] = "disabled (--skip)"
            continue
        why = cls().not_applicable(ctx)
        if why:
            not_applicable[name] = why
        else:
            chosen.append(name)
    plan = ReviewPlan(tools=chosen, skipped=skipped)
    update["not_applicable"] = not_applicable
    runs_first = any(cls.standard_check == "runs" for cls in ordered_tools() if cls.name in chosen)
    if runs_first and ctx.setup.can_run and ctx.submission.syntax_error is None:
        # Rationale: the run check (Tool.standard_check "runs") imports the submission and runs the
        # reference first; their sandbox children start now (torch imports) while the source-reading
        # model plans. Same children, same sandbox; no submission code runs before that check asks.
        ctx.session.prelaunch()
    # compilers that need nothing of a run (nvcc on CUDA sources) start now, beside every tool before theirs
    _early(chosen, lambda tool: tool.start_apart(ctx))
    if rc.drafter.reads_source:
        rc.progress("reading the source: findings and probes")
        try:
            out = rc.drafter.plan(state=state, ctx=ctx, tools=chosen, diff=rc.diff)
        except Exception as exc:  # noqa: BLE001 - the model's planner is optional; the review goes on
            plan.llm_notes = [f"the source-reading model failed: {type(exc).__name__}: {exc}"[:400]]
        else:
            plan.probes, plan.llm_findings, plan.llm_removed = out.probes, out.findings, out.removed
            plan.llm_notes = out.notes
            if out.usage is not None:
                update["llm"] = out.usage
    update["plan"] = ctx.plan = plan
    return update


def _prepare_ahead(ctx: Any, names: list[str]) -> None:
    """Once the submission runs, each tool still to come starts what it would wait for (``Tool.prepare``:
    a spare child, a compile child) while the tools before it work. A tool whose ``prepare`` fails starts
    it when it runs, as it would have."""
    _early(names, lambda tool: tool.prepare(ctx))


def _start_ahead(ctx: Any, finished: str, names: list[str]) -> None:
    """The tools still to come that start their work ahead once ``finished`` has ended (``Tool.ahead``).
    One whose ``ahead`` fails does that work when it runs, as it would have."""
    from tools.engine.registry import tools

    table = tools()
    _early([n for n in names if table[n].ahead_after == finished], lambda tool: tool.ahead(ctx))


def _early(names: list[str], start: Callable[[Tool], None]) -> None:
    """``start`` for each of the tools ``names``; one that fails is left to start what it needs when it
    runs (an early start only saves time; the tool reports for itself)."""
    from tools.engine.registry import tools

    table = tools()
    for name in names:
        try:
            start(table[name]())
        except Exception:  # noqa: BLE001, S112 - see the docstring
            continue


def make_tool_node(cls: type[Tool]):
    def node(state: ReviewState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        rc = runtime.context
        ctx = rc.tool_context(state)
        chosen = ctx.plan.tools
        if cls.name not in chosen:
            return {}
        index, total = chosen.index(cls.name) + 1, len(chosen)
        rc.progress(ToolStarted(cls.name, index, total, cls.description))
        before_e, before_f = len(ctx.evidence), len(ctx.findings)
        t0 = time.monotonic()
        tool = cls()
        try:
            tool.run(ctx)
        except Exception as exc:  # noqa: BLE001 - a broken tool is recorded as unverified, never a pass
            ctx.add_evidence(tool, outcome="unverified", defect="tool_error",
                             summary=f"the {cls.name} tool itself failed: {type(exc).__name__}: {exc}"[:400],
                             reason="reviewer tool error",
                             result={"traceback": traceback.format_exc()[-4000:]},
                             duration_s=time.monotonic() - t0, rerun=ctx.rerun(cls.name))
        rc.progress(ToolFinished(cls.name, index, total, outcome_summary(e.outcome for e in ctx.evidence[before_e:]),
                                 time.monotonic() - t0))
        added = ctx.evidence[before_e:]
        from tools.engine.facts import RunCheckPassed

        if cls.standard_check == "runs" and added and all(e.outcome in ("pass", "info") for e in added):
            ctx.facts.put(RunCheckPassed())
            _prepare_ahead(ctx, chosen[index:])
        if RunCheckPassed in ctx.facts:
            _start_ahead(ctx, cls.name, chosen[index:])
        # the items this tool added (the state's reducer appends them); the context already holds them
        return {"evidence": ctx.evidence[before_e:], "findings": ctx.findings[before_f:],
                "timings": {cls.name: round(time.monotonic() - t0, 2)}}

    node.__name__ = f"tool_{cls.name}"
    return node


def judge_node(state: ReviewState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    rc = runtime.context
    rc.close()
    rc.progress("judging against the rubric")
    from tools.engine.registry import declared_criteria

    rubric = rc.rubric or load_rubric(state.config.rubric, tools=declared_criteria())
    criteria = judge(rubric, state.evidence, state.not_applicable)
    verdict, reason = overall(criteria, human_flags=state.human_flags)
    return {"criteria": criteria, "overall": verdict, "overall_reason": reason}


def draft_node(state: ReviewState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    rc = runtime.context
    rc.progress("drafting the assessment")
    criteria, findings = state.criteria, state.findings
    update: dict[str, Any] = {}
    outcome = rc.drafter.draft(state=state, criteria=criteria, evidence=state.evidence, findings=findings)
    draft, notes, removed = outcome.draft, list(outcome.notes), list(outcome.removed)
    if outcome.usage is not None:
        update["llm"] = outcome.usage
    if outcome.findings:
        update["findings"] = list(outcome.findings)
        findings = findings + outcome.findings
    verdict, reason = state.overall, state.overall_reason
    if outcome.human_flags:
        update["human_flags"] = list(outcome.human_flags)
        verdict, reason = overall(criteria, human_flags=state.human_flags + outcome.human_flags)
        update["overall"], update["overall_reason"] = verdict, reason
    if draft is None:
        draft = draft_offline(criteria, state.evidence, findings, verdict, reason)
    if notes:
        draft = draft.model_copy(update={"notes": [*draft.notes, *notes]})
    if removed:
        draft = draft.model_copy(update={"removed": [*draft.removed, *removed]})
    update["draft"] = draft
    return update


def assemble(state: ReviewState, status: str, **update: Any) -> Review:
    """The review the state holds, with ``update`` (state fields a node has just set) over it."""
    if update:
        state = state.model_copy(update=update)
    assert state.submission is not None and state.overall is not None  # ingest and judge ran before
    return Review(
        run_id=state.run_id, status=status, overall=state.overall, overall_reason=state.overall_reason,
        criteria=state.criteria, evidence=state.evidence, findings=state.findings, draft=state.draft,
        submission=state.submission.info(), seed=state.seed, environment=state.environment,
        signoff=state.signoff, llm=state.llm or LLMUsage(), created_at=state.created_at,
        timings=dict(state.timings), duration_s=round(time.time() - state.started, 2),
        run_dir=str(run_dir_of(state)), task=task_of(state.evidence),
    )


def run_dir_of(state: ReviewState) -> Path:
    """The run's folder as ``start_review`` made it (checkpoints written before the state carried it:
    the same path, from the configuration's runs folder)."""
    if state.run_dir:
        return Path(state.run_dir)
    return Path(state.config.runs_dir) / state.run_id


def ground_node(state: ReviewState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    rc = runtime.context
    rc.progress("checking every claim against the evidence")
    assert state.draft is not None and state.submission is not None  # the draft and ingest nodes ran
    draft = ground(state.draft, state.criteria, {e.id for e in state.evidence}, Path(state.submission.root))
    status = "awaiting_signoff" if state.config.signoff else "completed"
    review = assemble(state, status, draft=draft)
    draft = draft.model_copy(update={"markdown": render_markdown(review)})
    return {"draft": draft, "status": status}


def record_node(state: ReviewState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The draft awaiting sign-off, written for ``kreview show`` and the sign-off in another process."""
    assert state.status is not None
    review = assemble(state, state.status)
    write_review(runtime.context.run_dir, review, review.draft.markdown if review.draft else "")
    return {}


def signoff_node(state: ReviewState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Stops the run for a human (``interrupt``); resumed with the decision ``reviewer.api.signoff`` sends:
    the record's fields, and ``edited_markdown`` when the human rewrote the draft."""
    decision = dict(interrupt({"run_id": state.run_id, "overall": state.overall,
                               "question": "approve or reject this draft"}))
    edited = decision.pop("edited_markdown", None)
    return {"signoff": SignoffRecord(**decision, edited=edited is not None), "edited_markdown": edited}


def publish_node(state: ReviewState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    rc = runtime.context
    signoff = state.signoff
    assert state.draft is not None  # the draft node ran
    draft = state.draft
    if state.edited_markdown is not None:
        draft = draft.model_copy(update={"markdown": state.edited_markdown})
    status = signoff.decision if signoff else "completed"
    review = assemble(state, status, draft=draft)
    markdown = draft.markdown if signoff and signoff.edited else render_markdown(review)
    review = review.model_copy(update={"draft": draft.model_copy(update={"markdown": markdown})})
    write_review(rc.run_dir, review, markdown)
    for publisher in rc.publishers:
        publisher(review)
    return {"status": status, "draft": review.draft}
