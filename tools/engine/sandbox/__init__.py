"""Run untrusted submission code in child processes with time, memory and environment limits."""

from reviewer.core.limits import SandboxLimits
from tools.engine.sandbox.worker import CallResult, ChildCrash, SandboxWorker

__all__ = ["CallResult", "ChildCrash", "SandboxLimits", "SandboxWorker"]
