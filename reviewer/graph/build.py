"""Assemble the review graph."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

import reviewer.graph.nodes as nodes
from reviewer.graph.context import RunContext
from reviewer.graph.state import ReviewState
from tools.engine.registry import ordered_tools


def _after_ground(state: dict[str, Any]) -> str:
    return "record" if state.get("status") == "awaiting_signoff" else "publish"


def build_graph(checkpointer: Any = None):
    g = StateGraph(ReviewState, context_schema=RunContext)
    g.add_node("ingest", nodes.ingest)
    g.add_node("plan", nodes.plan)
    g.add_edge(START, "ingest")
    g.add_edge("ingest", "plan")
    prev = "plan"
    for cls in ordered_tools():
        name = f"tool_{cls.name}"
        g.add_node(name, nodes.make_tool_node(cls))
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
