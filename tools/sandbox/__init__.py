"""Run untrusted submission code in child processes with time, memory and environment limits."""

from tools.sandbox.limits import SandboxLimits
from tools.sandbox.worker import CallResult, ChildCrash, SandboxWorker

__all__ = ["CallResult", "ChildCrash", "SandboxLimits", "SandboxWorker"]
