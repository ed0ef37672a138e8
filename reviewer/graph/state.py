"""The graph's state: one typed model, the form every node reads and the SQLite checkpoint stores.

Its values are the project's own models (``Evidence``, ``Draft``, ``ReviewConfig``...), kept as models
from node to node: LangGraph hands each node ``ReviewState(**channels)``, where a model already in a
channel is taken as it is (pydantic does not revalidate instances), so nothing converts the evidence
list between nodes. The checkpoint stores each model as its JSON (``checkpoint_serde``), as the
previous version stored its plain state, so a run stored by either version resumes the same way: its
values are validated into the models on the way in (``unreadable`` names a checkpoint that no longer
reads as this state).

The run's configuration lives here and nowhere else: a run resumed in another process (``kreview
signoff``) goes on with the configuration it started with. ``RunContext`` holds only what cannot be
stored (live sandbox children, clients, callbacks).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewer.core.config import ReviewConfig
from reviewer.core.errors import SignoffError
from reviewer.core.models import CriterionResult, Draft, Evidence, Finding, LLMUsage, Overall, RunStatus, SignoffRecord
from reviewer.core.submission import Submission
from tools.engine.review_plan import ReviewPlan


def _merge(a: dict[str, float] | None, b: dict[str, float] | None) -> dict[str, float]:
    return {**(a or {}), **(b or {})}


class ReviewState(BaseModel):
    """What the review knows at each step. The first six fields are the run's input (``start_review``);
    the others are filled by the nodes named beside them."""

    model_config = ConfigDict(extra="ignore")  # a stored run's retired keys are not an error

    run_id: str
    root: str
    config: ReviewConfig
    seed: int
    created_at: str
    started: float
    run_dir: str = ""
    """The run's folder ("" in checkpoints written before the state carried it: ``run_dir_of``)."""
    submission: Submission | None = None  # ingest
    environment: dict[str, Any] = Field(default_factory=dict)  # ingest, plan (--only)
    plan: ReviewPlan = Field(default_factory=ReviewPlan)  # plan
    not_applicable: dict[str, str] = Field(default_factory=dict)  # plan
    evidence: Annotated[list[Evidence], operator.add] = Field(default_factory=list)  # tools
    findings: Annotated[list[Finding], operator.add] = Field(default_factory=list)  # tools, draft
    human_flags: Annotated[list[str], operator.add] = Field(default_factory=list)  # draft
    criteria: list[CriterionResult] = Field(default_factory=list)  # judge
    overall: Overall | None = None  # judge, draft
    overall_reason: str = ""  # judge, draft
    draft: Draft | None = None  # draft, ground, publish
    status: RunStatus | None = None  # ground, publish
    signoff: SignoffRecord | None = None  # signoff (the human's decision), publish
    edited_markdown: str | None = None  # signoff: the reviewer's own text, published as it is
    llm: LLMUsage | None = None  # plan, draft (a source-reading drafter)
    timings: Annotated[dict[str, float], _merge] = Field(default_factory=dict)  # tools


CHECKPOINT_TYPES: tuple[type[BaseModel], ...] = (ReviewConfig, Submission, ReviewPlan, Evidence, Finding,
                                                 CriterionResult, Draft, SignoffRecord, LLMUsage)
"""The models the state holds; the checkpoint stores each as its JSON."""


def _as_json(value: Any) -> Any:
    """``value`` with every state model in it replaced by its JSON (LangGraph's own values left as they are)."""
    if isinstance(value, CHECKPOINT_TYPES):
        return value.model_dump(mode="json")
    if type(value) is dict:
        return {k: _as_json(v) for k, v in value.items()}
    if type(value) is list:
        return [_as_json(v) for v in value]
    if type(value) is tuple:
        return tuple(_as_json(v) for v in value)
    return value


def checkpoint_serde() -> Any:
    """LangGraph's serializer, writing the state's models as their JSON: the checkpoint holds what the
    previous version's held (plain values, no class names to import), and a resumed run's values are
    validated into the models by ``ReviewState`` before any node sees them. Reading is LangGraph's own,
    so ``LANGGRAPH_STRICT_MSGPACK`` (reviewer/pr/resume.py) still limits what a stored run can revive."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    class _JsonModels(JsonPlusSerializer):
        def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
            return super().dumps_typed(_as_json(obj))

    return _JsonModels()


def unreadable(run_id: str, exc: ValidationError) -> SignoffError:
    """The sign-off error for a checkpoint whose values do not read as this version's state (stored by
    a version whose state this one cannot take): says where, instead of a traceback from inside the graph."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return SignoffError(f"run {run_id}'s checkpoint does not read as this version's review state "
                        f"({exc.error_count()} problem(s), first at {where}: {first['msg']}); "
                        f"it was stored by another kreview version: rerun the review")
