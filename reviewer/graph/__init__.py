"""The review as a LangGraph state graph:

ingest -> plan -> tool_<name>... -> judge -> draft -> ground -> signoff (interrupt) -> publish
"""

from reviewer.graph.build import build_graph
from reviewer.graph.context import RunContext

__all__ = ["RunContext", "build_graph"]
