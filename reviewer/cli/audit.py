"""``kreview audit DIR [DIR...]``: can each task's own check tell a right kernel from a wrong one?"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from reviewer.cli.common import DeviceOpt, Timeout, _guard, app, configure, err, examples
from reviewer.core.task import TaskAudit


class AuditFormat(str, Enum):
    text = "text"
    json = "json"


def render_text(results: list[TaskAudit]) -> str:
    lines = []
    for r in results:
        lines.append(f"{'DEGENERATE' if r.degenerate else 'sound'}  {r.path}")
        if r.task_check:
            lines.append(f"  task check: {r.task_check}")
        for f in r.findings:
            mark = "!" if f.degenerate else "-"
            lines.append(f"  {mark} {f.kind}: {f.detail}")
            if f.covered_by:
                lines.append(f"      covered by: {f.covered_by}")
    bad = sum(r.degenerate for r in results)
    lines.append(f"{len(results)} task(s) audited, {bad} degenerate")
    return "\n".join(lines) + "\n"


def render_json(results: list[TaskAudit]) -> str:
    return json.dumps({"tasks": [r.to_json() for r in results]}, indent=2) + "\n"


@app.command(help="Audit tasks (no submission needed): impostor outputs through each task's own check, and the "
                  "reference probed for degenerate inputs and outputs. Exit 1 when any task is degenerate."
                  + examples("kreview audit tests/data/tasks/wide_softmax",
                             "kreview audit KernelBench/level1 --format json > audit.json",
                             "kreview audit KernelBench/level1 --jobs 4 --no-cache"))
def audit(
    paths: Annotated[list[Path], typer.Argument(help="task folders (a KernelBench reference, GPU MODE reference.py + "
                                                     "task.yml, a kreview.toml), submission folders, or folders "
                                                     "holding tasks")],
    fmt: Annotated[AuditFormat, typer.Option("--format", help="output on stdout")] = AuditFormat.text,
    seed: Annotated[int, typer.Option(help="master seed of the audit's cases")] = 0,
    device: DeviceOpt = None,
    timeout: Timeout = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")] = False,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="tasks audited at once, each in its own "
                                             "worker and sandbox child [default: the cores, fewer where memory "
                                             "is short]")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="audit every task again; neither read nor write "
                                                             "the cache")] = False,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", help="the audit cache's folder [default: "
                                                                      "$XDG_CACHE_HOME/kreview/audit]")] = None,
) -> None:
    def go() -> None:
        from reviewer.audit import audit_tasks
        from reviewer.audit_cache import AuditCache, default_cache_dir

        config = configure(cli=dict(device=device.value if device else None, timeout=timeout))

        def progress(line: str) -> None:
            if not quiet:
                err.print(escape(line), highlight=False, soft_wrap=True)

        cache = None if no_cache else AuditCache(cache_dir or default_cache_dir())
        results = audit_tasks(list(paths), config, seed, progress, jobs=jobs, cache=cache)
        sys.stdout.write(render_json(results) if fmt is AuditFormat.json else render_text(results))
        # a task the audit could not finish (its own error) is not called sound either
        if any(r.degenerate or any(f.kind == "audit_error" for f in r.findings) for r in results):
            raise typer.Exit(1)

    _guard(go)
