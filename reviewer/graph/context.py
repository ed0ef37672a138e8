"""Per-process runtime of a review: things that cannot live in a checkpoint (live child
processes, clients, callbacks). Passed to nodes as LangGraph's runtime context; the run's
configuration and everything else that can be stored is in the state (reviewer/graph/state.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reviewer.core.config import ReviewConfig
from reviewer.device import detect_device
from reviewer.core.submission import Submission
from reviewer.core.models import Review
from reviewer.drafting.base import Drafter, OfflineDrafter
from reviewer.graph.state import ReviewState
from reviewer.rubric import Rubric
from tools.engine.runsetup import DeviceInfo, RunSetup

if TYPE_CHECKING:  # the tools, the sandbox session and torch load only where a review runs (not for sign-off)
    from tools.engine.tool import ToolContext


def _noop(_: object) -> None:
    return None


@dataclass
class RunContext:
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

    def device(self, config: ReviewConfig) -> DeviceInfo:
        """The review's device (``config.device``: the run's configuration, from its state), found once."""
        if self._device is None:
            self._device = detect_device(config.device)
        return self._device

    def tool_context(self, state: ReviewState) -> ToolContext:
        """The run's tool context, made once (a new run, or a run resumed from its checkpoint). The tools
        add to its evidence and findings; a tool node hands the state only the items its tool added, and
        the context reads the state's lists again only when they hold items it has not seen."""
        if self._tool_ctx is None:
            sub = self.submission or state.submission
            if sub is None:
                raise RuntimeError("the tools ran before the ingest node read the submission")
            self._tool_ctx = make_tool_context(sub, state.config, self.run_dir, state.seed, self.device(state.config))
            self._tool_ctx.plan = state.plan
        ctx = self._tool_ctx
        if len(ctx.evidence) != len(state.evidence) or len(ctx.findings) != len(state.findings):
            ctx.evidence, ctx.findings = list(state.evidence), list(state.findings)
        return ctx

    def close(self, *, keep_logs: bool = True) -> None:
        """Stop the run's sandbox children; ``keep_logs=False``: their logs are not written to the run's
        folder (a run that never began, whose folder is not made)."""
        if self._tool_ctx is not None:
            if not keep_logs:
                self._tool_ctx.session.keep_logs_in = None
            # compiles a tool started in a thread and never took (an interrupted review) end first, with
            # their own clean-ups, so nothing runs on or writes into the run's folder after the close
            self._tool_ctx.stop_background()
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
    session.run_tag = f"seed {seed}"
    return ToolContext(submission=sub, options=config.tool_options(), run_dir=run_dir, device=device, setup=setup,
                       master_seed=seed, session=session)
