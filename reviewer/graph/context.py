"""Per-process runtime of a review: things that cannot live in a checkpoint (live child
processes, clients, callbacks). Passed to nodes as LangGraph's runtime context."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reviewer.core.config import ReviewConfig
from reviewer.device import detect_device
from reviewer.core.submission import Submission
from reviewer.core.models import Evidence, Finding, Review
from reviewer.drafting.base import Drafter, OfflineDrafter
from reviewer.rubric import Rubric
from tools.engine.review_plan import ReviewPlan
from tools.engine.runsetup import DeviceInfo, RunSetup

if TYPE_CHECKING:  # the tools, the sandbox session and torch load only where a review runs (not for sign-off)
    from tools.engine.tool import ToolContext


def _noop(_: object) -> None:
    return None


@dataclass
class RunContext:
    config: ReviewConfig
    run_dir: Path
    """The run's folder: made once by ``reviewer.api.start_review``, found again by ``signoff``."""
    submission: Submission | None = None
    """The submission ``start_review`` loaded (and checked) before the run began; None on resume."""
    rubric: Rubric | None = None
    """The rubric ``start_review`` loaded (and checked) before the run began; None on resume."""
    progress: Callable[[object], None] = _noop
    drafter: Drafter = field(default_factory=OfflineDrafter)
    diff: str = ""
    """The unified diff of the change under review (a pull request), or "": the drafter's ``plan`` reads it."""
    publishers: list[Callable[[Review], None]] = field(default_factory=list)
    """Called with the final review once it is written (after sign-off, or at the end without one)."""
    _tool_ctx: ToolContext | None = None
    _device: DeviceInfo | None = None

    def device(self) -> DeviceInfo:
        if self._device is None:
            self._device = detect_device(self.config.device)
        return self._device

    def setup_for(self, submission: Submission) -> RunSetup:
        return setup_for(submission, self.device())

    def tool_context(self, state: dict[str, Any]) -> ToolContext:
        """The run's tool context. Its evidence and findings are read from the state only when the
        context is made (a new run, or a run resumed from its checkpoint) or when the state holds
        items the context has not seen; otherwise the context already holds them as models, in the
        form the checkpoint stores (``record_new``), so no node converts the whole list again."""
        if self._tool_ctx is None:
            sub = self.submission or Submission.model_validate(state["submission"])
            self._tool_ctx = make_tool_context(sub, self.config, self.run_dir, state["seed"], self.device())
            # the plan as a model: read from the state once per context (a resumed run); the plan
            # node sets it on the context when it makes it
            self._tool_ctx.plan = ReviewPlan.from_state(state.get("plan"))
        ctx = self._tool_ctx
        stored_e, stored_f = state.get("evidence", []), state.get("findings", [])
        if len(ctx.evidence) != len(stored_e) or len(ctx.findings) != len(stored_f):
            ctx.evidence = [Evidence.model_validate(e) for e in stored_e]
            ctx.findings = [Finding.model_validate(f) for f in stored_f]
        return ctx

    def record_new(self, ctx: ToolContext, before_e: int, before_f: int) -> dict[str, list[dict[str, Any]]]:
        """The items a tool node added, as the state's JSON; the context keeps them in the form a
        resumed run reads back (tuples become lists), so a later tool sees the same values in a run
        that ran through and in one resumed from its checkpoint."""
        evidence = [e.model_dump(mode="json") for e in ctx.evidence[before_e:]]
        findings = [f.model_dump(mode="json") for f in ctx.findings[before_f:]]
        ctx.evidence[before_e:] = [Evidence.model_validate(e) for e in evidence]
        ctx.findings[before_f:] = [Finding.model_validate(f) for f in findings]
        return {"evidence": evidence, "findings": findings}

    def close(self) -> None:
        if self._tool_ctx is not None:
            self._tool_ctx.session.close()
            self._tool_ctx = None


def setup_for(submission: Submission, device: DeviceInfo) -> RunSetup:
    from tools.engine.registry import backend_for

    backend = backend_for(submission.framework)
    return backend.run_setup(backend.device_for(submission, device))


def make_tool_context(sub: Submission, config: ReviewConfig, run_dir: Path, seed: int,
                      device: DeviceInfo) -> ToolContext:
    """A tool context with a fresh (lazy) sandbox session; the caller closes ``ctx.session``.
    ``device`` is the review's; the submission's backend may run its kernels elsewhere (a TPU
    kernel on a GPU machine runs in the interpreter), and the context holds that device."""
    from tools.engine.registry import backend_for
    from tools.engine.session import SandboxSession
    from tools.engine.tool import ToolContext

    device = backend_for(sub.framework).device_for(sub, device)
    setup = setup_for(sub, device)
    session = SandboxSession(sub, limits=config.limits, device=device, setup=setup,
                             keep_logs_in=run_dir / "artifacts" / "sandbox")
    return ToolContext(submission=sub, options=config.tool_options(), run_dir=run_dir, device=device, setup=setup,
                       master_seed=seed, session=session)
