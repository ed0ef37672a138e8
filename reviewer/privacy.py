"""Nothing about a review leaves the machine unless the reviewer sends it on purpose.

LangChain and LangGraph trace every run to LangSmith when the user's environment says so
(``LANGSMITH_TRACING=true``, ``LANGCHAIN_TRACING_V2=true``): paths, evidence, environment and the
draft would be uploaded. The reviewer switches tracing off for itself (and for the processes it
starts) before langchain/langsmith are imported, whatever the environment says.
"""

from __future__ import annotations

import os

from reviewer.core.tracing import TRACING_OFF as _OFF


def force_tracing_off() -> None:
    os.environ.update(_OFF)
    # Rationale: an endpoint or key left in place could be picked up by a client created explicitly
    # by some library; without them there is nowhere to send to.
    for name in ("LANGSMITH_ENDPOINT", "LANGCHAIN_ENDPOINT", "LANGSMITH_API_KEY", "LANGCHAIN_API_KEY",
                 "LANGSMITH_RUNS_ENDPOINTS", "LANGSMITH_OTEL_ENABLED"):
        os.environ.pop(name, None)
    try:  # already imported (a host program imported langsmith first): clear its cached settings
        import sys

        utils = sys.modules.get("langsmith.utils")
        if utils is not None and hasattr(utils.get_env_var, "cache_clear"):
            utils.get_env_var.cache_clear()
    except Exception:  # noqa: BLE001 - best effort on a library's internals; the env is already off
        pass
