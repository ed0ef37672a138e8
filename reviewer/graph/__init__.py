"""The review as a LangGraph state graph:

ingest -> plan -> tool_<name>... -> judge -> draft -> ground -> signoff (interrupt) -> publish

Its names load on first use: the run context (reviewer/graph/context.py) is made, and the sandbox children
started, before LangGraph is imported (reviewer/api.py ``_start_children``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["RunContext", "build_graph"]


def __getattr__(name: str) -> Any:
    if name == "build_graph":
        from reviewer.graph.build import build_graph

        return build_graph
    if name == "RunContext":
        from reviewer.graph.context import RunContext

        return RunContext
    raise AttributeError(name)
