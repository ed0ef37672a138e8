"""The model in the review graph: one object the graph knows as its drafter.

``plan`` (plan node, before the tools): the static reviewer's findings, then the planner's probes.
``draft`` (draft node, after the judge): findings confirmed by the probes that tested them, then the
drafter's assessment. Usage is metered per run and returned with each outcome; every exchange is
appended to ``<run>/artifacts/llm/transcript.jsonl``. Nothing here raises for the model's sake: a
role that gets no usable answer is skipped with a note, and the offline drafter writes the draft.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from reviewer.drafting.base import DraftOutcome, PlanOutcome
from reviewer.llm.client import ChatModel
from reviewer.llm.drafter import write_draft
from reviewer.llm.planner import propose_probes
from reviewer.llm.settings import Price
from reviewer.llm.static_review import review_source
from reviewer.llm.structured import Asked, StructuredCaller, StructuredMode
from reviewer.llm.usage import UsageMeter
from reviewer.core.models import CriterionResult, Evidence, Finding, LLMUsage
from tools.engine.review_plan import ProbeOrigin
from tools.engine.tool import ToolContext

if TYPE_CHECKING:
    from reviewer.graph.state import ReviewState


def confirm(findings: list[Finding], evidence: list[Evidence]) -> tuple[list[Finding], list[str]]:
    """Findings with ``confirmed_by`` set, and a note for each finding its probes did not bear out.

    Rationale: a tool confirms a model's finding only by failing the probe proposed to test it;
    failing evidence elsewhere on the same lines may have another cause."""
    out, notes = [], []
    for f in findings:
        tested = [e for e in evidence if _tests(e, f.id)]
        failed = [e.id for e in tested if e.outcome == "fail"]
        out.append(f.model_copy(update={"confirmed_by": failed}) if failed else f)
        if tested and not failed:
            notes.append(f"finding {f.id} was tested by {', '.join(e.id for e in tested)}, which did not fail: "
                         "the suspected problem did not show on those inputs")
    return out, notes


def _tests(e: Evidence, finding: str) -> bool:
    """Whether ``e`` ran a probe proposed to test ``finding``: its typed origin (``ProbeOrigin``) says so,
    whatever tool recorded it."""
    origin = ProbeOrigin.of(e)
    return origin is not None and origin.finding == finding


class LLMDrafter:
    """The LLM agent: one implementation of ``reviewer.drafting.base.Drafter``."""

    reads_source = True

    def __init__(self, model: ChatModel, *, prices: dict[str, Price] | None = None,
                 structured: StructuredMode = "auto", temperature: float = 0.0, max_probes: int = 6) -> None:
        self.model = model
        self.prices = prices or {}
        self.structured = structured
        self.temperature = temperature
        self.max_probes = max_probes
        self._meters: dict[str, UsageMeter] = {}
        self._callers: dict[str, StructuredCaller] = {}

    # -- per run -----------------------------------------------------------------------------
    def _caller(self, state: ReviewState) -> StructuredCaller:
        run = state.run_id
        if run not in self._callers:
            self._meters[run] = UsageMeter(self.model.name, self.prices)
            caller = StructuredCaller(self.model, self._meters[run], structured=self.structured,
                                      temperature=self.temperature)
            log = _transcript_path(state)
            if log is not None:
                caller.on_exchange = lambda role, asked, log=log: append_transcript(log, role, asked)
            self._callers[run] = caller
        return self._callers[run]

    def usage(self, state: ReviewState) -> LLMUsage:
        self._caller(state)
        return self._meters[state.run_id].record()

    # -- roles -------------------------------------------------------------------------------
    def plan(self, *, state: ReviewState, ctx: ToolContext, tools: list[str], diff: str = "") -> PlanOutcome:
        caller = self._caller(state)
        static = review_source(caller, ctx.submission, diff)
        out = PlanOutcome(findings=list(static.findings), removed=list(static.removed), notes=list(static.notes))
        if "probes" in tools and self.max_probes > 0:
            planned = propose_probes(caller, ctx, static.findings, limit=self.max_probes, diff=diff)
            out.probes = list(planned.probes)
            out.notes += planned.notes
        out.usage = self.usage(state)
        return out

    def draft(self, *, state: ReviewState, criteria: list[CriterionResult], evidence: list[Evidence],
              findings: list[Finding]) -> DraftOutcome:
        try:
            return self._draft(state, criteria, evidence, findings)
        except Exception as exc:  # noqa: BLE001 - our bug or the model's, the offline draft still ships
            return DraftOutcome(draft=None, usage=self.usage(state),
                                notes=[f"the LLM drafter failed ({type(exc).__name__}: {exc}); "
                                       "the offline drafter wrote this draft"[:500]])

    def _draft(self, state: ReviewState, criteria: list[CriterionResult], evidence: list[Evidence],
               findings: list[Finding]) -> DraftOutcome:
        caller = self._caller(state)
        plan = state.plan
        llm_findings, notes = confirm(list(plan.llm_findings), evidence)
        removed = list(plan.llm_removed)
        notes = list(plan.llm_notes) + notes
        assert state.submission is not None  # the ingest node ran
        result = write_draft(caller, state.submission, criteria=criteria, evidence=evidence,
                             findings=findings + llm_findings,
                             overall=state.overall, overall_reason=state.overall_reason)
        notes += result.notes
        if result.draft is None:
            notes.append("the model's draft was unusable; the offline drafter wrote this one")
        return DraftOutcome(draft=result.draft, usage=self.usage(state), notes=notes,
                            human_flags=result.human_flags, findings=llm_findings, removed=removed + result.removed)


def _transcript_path(state: ReviewState) -> Path | None:
    if not state.run_dir:
        return None
    return Path(state.run_dir) / "artifacts" / "llm" / "transcript.jsonl"


def append_transcript(path: Path, role: str, asked: Asked) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as fh:
            for ex in asked.transcript:
                fh.write(json.dumps({"role": role, "request": ex.request, "reply": ex.reply, "error": ex.error,
                                     "cached": ex.cached}) + "\n")
    except OSError:
        return  # Rationale: a transcript is an aid for the reader; failing to write it costs nothing else
