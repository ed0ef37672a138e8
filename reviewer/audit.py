"""``kreview audit``: audit tasks without a submission (docs/task-audit.md).

Each task's reference runs in its own sandbox session, the same children a review uses; the audit
itself is tools/engine/task_audit.py. A reference that crashes or hangs is a finding of that task;
a folder without a task is a usage error raised before anything runs.

Tasks run ``jobs`` at a time, each in a worker process of its own session (reviewer/batch/executors.py):
no child, no reference and no process state is shared between two tasks' audits beyond what a
worker process held before either began (kreview's own imports), so a task's findings cannot depend
on which tasks ran before it or beside it. A task whose audit is in the cache (reviewer/audit_cache.py)
is not run at all.
"""

from __future__ import annotations

import os
import tempfile
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

from reviewer.audit_cache import AuditCache, key_body
from reviewer.batch.executors import LocalExecutor, Task
from reviewer.core.config import ReviewConfig
from reviewer.core.submission import Submission
from reviewer.core.task import TaskAudit, TaskFinding
from reviewer.device import detect_device
from reviewer.ingest.tasks import tasks_in
from tools.engine.runsetup import DeviceInfo


def find_tasks(paths: list[Path]) -> list[Submission]:
    """Every task under ``paths``, in order; ``IngestError`` for a folder without one."""
    return [task for p in paths for task in tasks_in(p)]


def _runnable(task: Submission, device: DeviceInfo) -> Submission:
    """Rationale: the run setup follows the submission's framework (a CUDA C kernel needs a GPU), but
    the audit runs only the reference; where that setup cannot run here, plain PyTorch's may."""
    from reviewer.graph.context import setup_for

    if setup_for(task, device).can_run or task.framework == "torch":
        return task
    plain = task.model_copy(update={"framework": "torch"})
    return plain if setup_for(plain, device).can_run else task


def audit_one(task: Submission, config: ReviewConfig, seed: int) -> TaskAudit:
    # the graph, the tools and the harness load only where a task runs, never for a cached one
    from reviewer.graph.context import make_tool_context
    from tools.engine.task_audit import audit

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
            return _error(task, f"{type(exc).__name__}: {exc}", traceback.format_exc())
        finally:
            ctx.session.close()
    return result.model_copy(update={"path": _path(task)})


def _path(task: Submission) -> str:
    """The task's folder, or its reference file where the folder holds several (a benchmark level)."""
    one_of_many = task.name == Path(task.reference_file).stem and task.name != task.root_path.name
    return str(task.root_path / task.reference_file) if one_of_many else task.root


def default_jobs(config: ReviewConfig) -> int:
    """Rationale: one task per core (a task's time is mostly its child's start-up, which is CPU);
    each job may need its reference child's whole memory budget plus a worker process (torch
    imported, about 1 GiB), so fewer where the machine's available memory does not hold that many."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    available = _available_mb()
    by_memory = cores if available is None else available // (config.limits.memory_mb + 1024)
    return max(1, min(cores, by_memory))


def _available_mb() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _done(i: int, n: int, task: Submission, result: TaskAudit, cached: bool = False) -> str:
    return (f"[{i}/{n}] {'DEGENERATE' if result.degenerate else 'sound'}: {_path(task)} "
            f"({len(result.findings)} finding(s){', cached' if cached else ''})")


def _error(task: Submission, what: str, trace: str) -> TaskAudit:
    """kreview's own failure on the task (the audit raised, or its worker process failed twice), said."""
    return TaskAudit(path=_path(task), format=task.format, findings=[TaskFinding(
        kind="audit_error", detail=f"the audit itself failed (a kreview bug): {what}"[:500],
        numbers={"traceback": trace[-3000:]})]).finished()


def audit_tasks(paths: list[Path], config: ReviewConfig, seed: int,
                progress: Callable[[str], None] = lambda _: None, *, jobs: int | None = None,
                cache: AuditCache | None = None) -> list[TaskAudit]:
    """Every task under ``paths`` audited, in the order found; ``jobs`` at a time (None: ``default_jobs``),
    each served from ``cache`` where it holds the task's audit under the same key."""
    from tools.engine.sandbox.isolation import require

    require()
    tasks = find_tasks(paths)
    n = len(tasks)
    results: dict[int, TaskAudit] = {}
    bodies: dict[int, dict] = {}
    if cache is not None:
        device = detect_device(config.device)
        options = config.tool_options().model_dump(mode="json")
        by_root: dict[str, set[str]] = {}
        for t in tasks:
            by_root.setdefault(t.root, set()).add(t.reference_file)
        for i, task in enumerate(tasks):
            bodies[i] = key_body(task, by_root[task.root] - {task.reference_file}, seed=seed, options=options,
                                 device=device)
            hit = cache.get(bodies[i])
            if hit is not None:
                results[i] = hit.model_copy(update={"path": _path(task)})
                progress(_done(i + 1, n, task, results[i], cached=True))
    todo = [i for i in range(n) if i not in results]
    workers = max(1, min(jobs or default_jobs(config), len(todo) or 1))
    waiting: Iterator[int] = iter(todo)

    def announce() -> None:
        i = next(waiting, None)
        if i is not None:
            progress(f"[{i + 1}/{n}] auditing {_path(tasks[i])}")

    for _ in range(workers):  # the executor starts this many at once, in this order
        announce()
    runs = [Task(key=str(i), fn=audit_one, args=(tasks[i], config, seed)) for i in todo]
    with LocalExecutor(workers) as executor:
        for outcome in executor.run(runs):
            i = int(outcome.task.key)
            result = outcome.value if outcome.error is None else \
                _error(tasks[i], (outcome.error.splitlines() or [""])[0], outcome.error)
            results[i] = result
            if cache is not None:
                cache.put(bodies[i], result)
            progress(_done(i + 1, n, tasks[i], result))
            announce()
    return [results[i] for i in range(n)]
