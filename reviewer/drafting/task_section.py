"""The "Task" section of a review's Markdown (and so its terminal text): what the task audit found
(reviewer/core/task.py), said as a finding about the task, never the kernel."""

from __future__ import annotations

from reviewer.core.task import TaskAudit
from reviewer.drafting.escape import md_text


def task_lines(task: TaskAudit | None) -> list[str]:
    if task is None:
        return []
    head = ("degenerate: a wrong kernel can pass its check" if task.degenerate
            else "sound: its check rejected every impostor")
    lines = ["## Task", "", f"The task is **{head}** (check: {md_text(task.task_check or 'none')}). "
             "These findings are about the task; they never fail the kernel.", ""]
    for f in task.findings:
        mark = "**degenerate**" if f.degenerate else "note"
        cover = f" Covered by: {md_text(f.covered_by)}." if f.covered_by else ""
        lines.append(f"- {mark} `{f.kind}`: {md_text(f.detail)}{cover}")
    return lines + ([""] if task.findings else [])
