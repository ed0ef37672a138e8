"""Per-process runtime of a review: things that cannot live in a checkpoint (live child
processes, clients, callbacks). Passed to nodes as LangGraph's runtime context."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reviewer.core.config import ReviewConfig
from reviewer.device import detect_device
from reviewer.core.submission import Submission
from reviewer.core.models import Evidence, Finding
from tools.engine.registry import backend_for, declared_criteria
from tools.engine.runsetup import DeviceInfo, RunSetup
from tools.engine.tool import ToolContext
from tools.engine.session import SandboxSession


def _noop(_: object) -> None:
    return None


@dataclass
class RunContext:
    config: ReviewConfig
    run_dir: Path
    progress: Callable[[object], None] = _noop
    drafter: Any = None
    services: dict[str, Any] = field(default_factory=dict)
    """Optional collaborators for extensions (LLM client, GitHub client)."""
    _tool_ctx: ToolContext | None = None
    _device: DeviceInfo | None = None

    def device(self) -> DeviceInfo:
        if self._device is None:
            self._device = detect_device(self.config.device)
        return self._device

    def setup_for(self, submission: Submission) -> RunSetup:
        return setup_for(submission, self.device())

    def tool_context(self, state: dict[str, Any]) -> ToolContext:
        if self._tool_ctx is None:
            sub = Submission.model_validate(state["submission"])
            self._tool_ctx = make_tool_context(sub, self.config, self.run_dir, state["seed"], self.device())
        ctx = self._tool_ctx
        ctx.evidence = [Evidence.model_validate(e) for e in state.get("evidence", [])]
        ctx.findings = [Finding.model_validate(f) for f in state.get("findings", [])]
        ctx.plan = state.get("plan", {})
        return ctx

    def close(self) -> None:
        if self._tool_ctx is not None:
            self._tool_ctx.session.close()
            self._tool_ctx = None


def setup_for(submission: Submission, device: DeviceInfo) -> RunSetup:
    return backend_for(submission.framework).run_setup(device)


def make_tool_context(sub: Submission, config: ReviewConfig, run_dir: Path, seed: int,
                      device: DeviceInfo) -> ToolContext:
    """A tool context with a fresh (lazy) sandbox session; the caller closes ``ctx.session``."""
    setup = setup_for(sub, device)
    session = SandboxSession(sub, limits=config.limits, device=device, setup=setup,
                             keep_logs_in=run_dir / "artifacts" / "sandbox")
    return ToolContext(submission=sub, config=config, run_dir=run_dir, device=device, setup=setup,
                       master_seed=seed, session=session, declared=declared_criteria())
