"""Assemble the review graph."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

import reviewer.graph.nodes as nodes
from reviewer.graph.context import RunContext
from reviewer.graph.state import ReviewState


def _after_ground(state: ReviewState) -> str:
    return "record" if state.status == "awaiting_signoff" else "publish"


def _resumed_tool_node(name: str):
    def node(state: ReviewState) -> dict[str, Any]:
        raise RuntimeError(f"tool {name} ran in a graph built to resume a sign-off")

    return node


def build_graph(checkpointer: Any = None, *, for_signoff: bool = False):
    """The review graph. ``for_signoff``: the graph that resumes a run stopped at sign-off, whose tool
    nodes (already run; only their names matter to the checkpoint) come from the entry points' names
    without importing any tool, so ``kreview signoff`` loads no framework (issue 34)."""
    g = StateGraph(ReviewState, context_schema=RunContext)
    g.add_node("ingest", nodes.ingest)
    g.add_node("plan", nodes.plan)
    g.add_edge(START, "ingest")
    g.add_edge("ingest", "plan")
    prev = "plan"
    if for_signoff:
        from tools.engine.plugin_names import registered_names

        tool_nodes = [(f"tool_{n}", _resumed_tool_node(n)) for n in registered_names()]
    else:
        from tools.engine.registry import ordered_tools

        tool_nodes = [(f"tool_{cls.name}", nodes.make_tool_node(cls)) for cls in ordered_tools()]
    for name, node in tool_nodes:
        g.add_node(name, node)
        g.add_edge(prev, name)
        prev = name
    g.add_node("judge", nodes.judge_node)
    g.add_node("draft", nodes.draft_node)
    g.add_node("ground", nodes.ground_node)
    g.add_node("record", nodes.record_node)
    g.add_node("signoff", nodes.signoff_node)
    g.add_node("publish", nodes.publish_node)
    g.add_edge(prev, "judge")
    g.add_edge("judge", "draft")
    g.add_edge("draft", "ground")
    g.add_conditional_edges("ground", _after_ground, {"record": "record", "publish": "publish"})
    g.add_edge("record", "signoff")
    g.add_edge("signoff", "publish")
    g.add_edge("publish", END)
    return g.compile(checkpointer=checkpointer)
