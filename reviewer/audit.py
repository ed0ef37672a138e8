"""``kreview audit``: audit tasks without a submission (docs/task-audit.md).

Each task's reference runs in its own sandbox session, the same children a review uses; the audit
itself is tools/engine/task_audit.py. A reference that crashes or hangs is a finding of that task;
a folder without a task is a usage error raised before anything runs.
"""

from __future__ import annotations

import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

from reviewer.core.config import ReviewConfig
from reviewer.core.submission import Submission
from reviewer.core.task import TaskAudit, TaskFinding
from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context, setup_for
from reviewer.ingest.tasks import tasks_in
from tools.engine.runsetup import DeviceInfo
from tools.engine.task_audit import audit


def find_tasks(paths: list[Path]) -> list[Submission]:
    """Every task under ``paths``, in order; ``IngestError`` for a folder without one."""
    return [task for p in paths for task in tasks_in(p)]


def _runnable(task: Submission, device: DeviceInfo) -> Submission:
    """Rationale: the run setup follows the submission's framework (a CUDA C kernel needs a GPU), but
    the audit runs only the reference; where that setup cannot run here, plain PyTorch's may."""
    if setup_for(task, device).can_run or task.framework == "torch":
        return task
    plain = task.model_copy(update={"framework": "torch"})
    return plain if setup_for(plain, device).can_run else task


def audit_one(task: Submission, config: ReviewConfig, seed: int) -> TaskAudit:
    device = detect_device(config.device)
    task = _runnable(task, device)
    with tempfile.TemporaryDirectory(prefix="kreview-audit-") as run_dir:
        ctx = make_tool_context(task, config, Path(run_dir), seed, device)
        ctx.session.paired = ("reference",)  # no submission runs: its child is never started
        try:
            if not ctx.setup.can_run:
                return TaskAudit(path=_path(task), format=task.format, findings=[TaskFinding(
                    kind="reference_not_run", detail=f"the reference cannot run here: {ctx.setup.why_not}")]).finished()
            result = audit(ctx)
        except Exception as exc:  # noqa: BLE001 - kreview's own bug on one task: said, and the others go on
            return TaskAudit(path=_path(task), format=task.format, findings=[TaskFinding(
                kind="audit_error",
                detail=f"the audit itself failed (a kreview bug): {type(exc).__name__}: {exc}"[:500],
                numbers={"traceback": traceback.format_exc()[-3000:]})]).finished()
        finally:
            ctx.session.close()
    return result.model_copy(update={"path": _path(task)})


def _path(task: Submission) -> str:
    """The task's folder, or its reference file where the folder holds several (a benchmark level)."""
    one_of_many = task.name == Path(task.reference_file).stem and task.name != task.root_path.name
    return str(task.root_path / task.reference_file) if one_of_many else task.root


def audit_tasks(paths: list[Path], config: ReviewConfig, seed: int,
                progress: Callable[[str], None] = lambda _: None) -> list[TaskAudit]:
    from tools.engine.sandbox.isolation import require

    require()
    tasks = find_tasks(paths)
    out = []
    for i, task in enumerate(tasks, 1):
        progress(f"[{i}/{len(tasks)}] auditing {_path(task)}")
        result = audit_one(task, config, seed)
        out.append(result)
        progress(f"[{i}/{len(tasks)}] {'DEGENERATE' if result.degenerate else 'sound'}: {_path(task)} "
                 f"({len(result.findings)} finding(s))")
    return out
