"""kernel-reviewer: evidence-backed reviews of GPU and accelerator kernels."""

from reviewer.privacy import force_tracing_off

__version__ = "0.1.0"

# before anything imports langchain/langgraph (reviewer/privacy.py)
force_tracing_off()
