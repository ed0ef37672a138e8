"""The graph's state: plain JSON-able values only, so the SQLite checkpoint can hold it."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict


def _merge(a: dict[str, float] | None, b: dict[str, float] | None) -> dict[str, float]:
    return {**(a or {}), **(b or {})}


class ReviewState(TypedDict, total=False):
    run_id: str
    run_dir: str
    root: str
    config: dict[str, Any]
    seed: int
    created_at: str
    started: float
    environment: dict[str, Any]
    submission: dict[str, Any]
    plan: dict[str, Any]
    not_applicable: dict[str, str]
    evidence: Annotated[list[dict[str, Any]], operator.add]
    findings: Annotated[list[dict[str, Any]], operator.add]
    human_flags: Annotated[list[str], operator.add]
    criteria: list[dict[str, Any]]
    overall: str
    overall_reason: str
    draft: dict[str, Any]
    signoff: dict[str, Any] | None
    status: str
    llm: dict[str, Any]
    timings: Annotated[dict[str, float], _merge]
