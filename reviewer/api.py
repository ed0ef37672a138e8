"""The reviewer's programmatic entry points (the CLI is a thin layer over these).

Imports of the review machinery (the graph, the tools, torch and the frameworks they load) happen inside
the functions that run a review, after the submission's path and the sandbox are checked: a mistyped
path, ``kreview show`` and the CLI's help answer without them (benchmarks/cli_startup.py).
"""

from __future__ import annotations

import contextlib
import gc
import secrets
import signal
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reviewer.core.config import ReviewConfig
from reviewer.core.errors import ReviewTerminated, SignoffError
from reviewer.ingest import load_submission
from reviewer.core.models import Review, SubmissionInfo
from reviewer.runs import checkpointer, create_run_dir, find_run, keep_sources, new_run_id, read_review

if TYPE_CHECKING:
    from reviewer.drafting.base import Drafter


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def start_review(path: str | Path, config: ReviewConfig, *, progress: Callable[[object], None] | None = None,
                 drafter: Drafter | None = None, diff: str = "",
                 publishers: Sequence[Callable[[Review], None]] = ()) -> Review:
    """Review ``path`` up to the sign-off stop (or to the end with ``config.signoff=False``).

    ``drafter``: the agent that reads the source and drafts (default: the offline drafter); ``diff``: the
    unified diff of the change under review, which the drafter's planner reads; ``publishers`` are
    called with the final review (a run that stops for sign-off publishes when it is signed off)."""
    # bad directories, bad rubrics and a machine without a sandbox fail here, before a run directory exists
    from tools.engine.sandbox.isolation import require

    require()
    sub = load_submission(path, config.format_hint, config.target_gpu)
    from reviewer.drafting.base import OfflineDrafter
    from reviewer.graph.context import RunContext
    from reviewer.graph.state import ReviewState, checkpoint_serde

    config = config.model_copy(update={"runs_dir": Path(config.runs_dir).resolve()})
    run_id = new_run_id()
    run_dir = Path(config.runs_dir) / run_id  # made once the rubric is checked
    rc = RunContext(run_dir=run_dir, submission=sub, drafter=drafter or OfflineDrafter(), diff=diff,
                    publishers=list(publishers))
    if progress is not None:
        rc.progress = progress
    seed = config.seed if config.seed is not None else secrets.randbelow(2**31 - 1)
    state = ReviewState(run_id=run_id, run_dir=str(run_dir), root=str(Path(path).resolve()), config=config,
                        seed=seed, created_at=_now(), started=time.time())
    try:
        # Rationale: the imports (LangGraph, every tool, torch) with the cyclic collector off: each collection
        # they set off walks every object made so far (torch and LangGraph took about 15 % longer with it on,
        # on the path every review waits on); ``freeze_imports`` then takes what they made out of its reach
        with _collector_paused():
            _start_children(rc, state)
            from reviewer.graph import build_graph
            from reviewer.rubric import load_rubric
            import tools.engine.registry as registry

            rc.rubric = load_rubric(config.rubric, tools=registry.declared_criteria())
            freeze_imports()
        create_run_dir(config.runs_dir, run_id)
    except BaseException:
        rc.close(keep_logs=False)  # a bad rubric: the children started ahead are stopped, no run directory made
        raise
    saver = checkpointer(run_dir, checkpoint_serde())
    try:
        with _terminate_raises():
            build_graph(saver).invoke(state, {"configurable": {"thread_id": run_id}}, context=rc)
    except (KeyboardInterrupt, ReviewTerminated) as exc:
        _record_interrupted(run_dir, run_id, sub.info(), seed, state.created_at, state.started, exc)
        raise
    finally:
        rc.close()  # stops every sandbox child and removes the sandbox folders
        saver.conn.close()
    review = read_review(run_dir)
    cited = [s.file for item in (*review.evidence, *review.findings) for s in item.spans]
    keep_sources(run_dir, Path(path), [review.submission.submission_file, review.submission.reference_file, *cited])
    return review


_FROZEN = False


def freeze_imports() -> None:
    """Once per process, after the review's imports (torch, the graph, every tool): what exists now is
    moved out of the garbage collector's reach (``gc.freeze``), so its full collections walk only what the
    reviews make. On the README demo the parent's collections took 0.56-0.66 s of CPU, 0.26-0.27 s frozen
    (``python benchmarks/parent_gc.py``). Once only: a long-lived process (``kreview serve``, batch) freezes
    its imports and what its first review had made by then (its context and children's handles, freed by
    reference counting as ever; only a cycle among them would outlive it), never a later review's objects."""
    global _FROZEN
    if not _FROZEN:
        _FROZEN = True
        gc.freeze()


@contextlib.contextmanager
def _collector_paused():
    """The cyclic garbage collector off for a block of imports: importing makes many objects, and every
    collection it triggers walks all the modules loaded so far (LangGraph's imports for a sign-off: 0.12 s
    less of its 1.1 s on the 2-core machine, ``benchmarks/cli_startup.py``). Reference counting frees as ever."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _start_children(rc: Any, state: Any) -> None:
    """Launch the submission's and the reference's sandbox children now, before the parent imports the
    graph, the tools and torch (about 2 s of its own), so that their start-up runs beside those imports
    instead of after them. The same children the plan node would launch (``SandboxSession.prelaunch``):
    nothing of the submission runs in them before the first request asks for it. Only for a review of
    every tool (no ``--only``/``--skip``), which always runs the submission when it can run at all; any
    other selection is left to the plan node, which knows which tools it chose."""
    config = state.config
    sub = rc.submission
    if config.only is not None or config.skip or sub is None or sub.syntax_error is not None:
        return
    try:
        ctx = rc.tool_context(state)
    except Exception:  # noqa: BLE001 - the plan node makes it again, and fails there as a review does
        return
    if ctx.setup.can_run:
        ctx.session.prelaunch()


@contextlib.contextmanager
def _terminate_raises():
    """SIGTERM raises ``ReviewTerminated`` in the main thread for the duration (SIGINT already
    raises ``KeyboardInterrupt``), so a cancelled review unwinds and cleans up."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise ReviewTerminated(f"signal {signal.Signals(signum).name}")

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _record_interrupted(run_dir: Path, run_id: str, info: SubmissionInfo, seed: int, created_at: str,
                        started: float, exc: BaseException) -> None:
    """A run that ``kreview show`` explains: failed, why, and that nothing was judged."""
    from reviewer.runs import write_review
    from tools.engine.sandbox.isolation import isolation

    what = "SIGTERM" if isinstance(exc, ReviewTerminated) else "SIGINT (Ctrl-C)"
    reason = (f"the review was interrupted by {what} before it finished; its sandbox children were stopped and "
              f"their folders removed; nothing was judged: rerun the review")
    review = Review(run_id=run_id, status="failed", overall="needs_human", overall_reason=reason, criteria=[],
                    evidence=[], submission=info, seed=seed, created_at=created_at,
                    duration_s=round(time.time() - started, 2),
                    environment={"interrupted": what, "sandbox_isolation": isolation().description},
                    run_dir=str(run_dir))
    try:
        from reviewer.drafting.render import render_markdown

        write_review(run_dir, review, render_markdown(review))
    except Exception:  # noqa: BLE001 - recording must not mask the interruption itself
        pass


def signoff(run: str, runs_dir: Path, *, approve: bool, by: str, note: str = "",
            edited_markdown: str | None = None, publishers: Sequence[Callable[[Review], None]] = ()) -> Review:
    """Resume a run waiting at sign-off (from any process) with a human decision."""
    run_dir = find_run(run, runs_dir)
    review = read_review(run_dir)
    if review.status != "awaiting_signoff":
        raise SignoffError(f"run {review.run_id} is {review.status}, not awaiting sign-off")
    with _collector_paused():  # LangGraph's imports are most of a sign-off's time (issue 34)
        from langgraph.types import Command

        from reviewer.graph import RunContext, build_graph
        from pydantic import ValidationError

        from reviewer.graph.state import checkpoint_serde, unreadable

    saver = checkpointer(run_dir, checkpoint_serde())
    try:
        graph = build_graph(saver, for_signoff=True)
        cfg = {"configurable": {"thread_id": review.run_id}}
        try:  # reads the stored values as the typed state the sign-off node would get
            snap = graph.get_state(cfg)
        except ValidationError as exc:
            raise unreadable(review.run_id, exc) from exc
        if "signoff" not in (snap.next or ()):
            raise SignoffError(f"run {review.run_id} has no pending sign-off in its checkpoint")
        rc = RunContext(run_dir=run_dir, publishers=list(publishers))
        decision: dict[str, Any] = {"decision": "approved" if approve else "rejected", "by": by, "note": note,
                                    "at": _now()}
        if edited_markdown is not None:
            decision["edited_markdown"] = edited_markdown
        graph.invoke(Command(resume=decision), cfg, context=rc)
    finally:
        saver.conn.close()
    return read_review(run_dir)


def show(run: str, runs_dir: Path) -> Review:
    return read_review(find_run(run, runs_dir))
