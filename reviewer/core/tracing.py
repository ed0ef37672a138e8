"""The variables that switch LangChain/LangSmith tracing off (reviewer/privacy.py sets them; a sandbox
child takes them away again before a submission loads, tools/engine/sandbox/child.py)."""

from __future__ import annotations

TRACING_OFF = {
    "LANGSMITH_TRACING": "false",
    "LANGSMITH_TRACING_V2": "false",
    "LANGCHAIN_TRACING": "false",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGCHAIN_CALLBACKS_BACKGROUND": "false",
}
TRACING_VARIABLES = frozenset(TRACING_OFF)
