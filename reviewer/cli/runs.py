"""``kreview runs``: the run store as a list, and pruning it."""

from __future__ import annotations

import json
import sys
from enum import Enum
from typing import Annotated, get_args

import typer
from rich.markup import escape

from reviewer.cli.common import RunsDir, _guard, app, err, examples
from reviewer.core.config import default_runs_dir


class RunsFormat(str, Enum):
    """A listing is text or JSON (sarif/junit/markdown describe one review: refused, not printed as text)."""

    text = "text"
    json = "json"



@app.command(help='List stored runs, newest first, with status and verdict; --prune removes stale ones.'
                  + examples("kreview runs",
                              "kreview runs --status awaiting_signoff",
                              "kreview runs --prune --dry-run"))
def runs(
    runs_dir: RunsDir = None,
    status: Annotated[str | None, typer.Option(help="only runs with this status (awaiting_signoff, approved, "
                                                    "rejected, completed, failed, incomplete, unreadable)")] = None,
    prune: Annotated[bool, typer.Option("--prune", help="delete runs that never reached a draft (and, with "
                                                          "--older-than, finished runs older than that)")] = False,
    older_than: Annotated[float | None, typer.Option("--older-than", help="days; with --prune")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="with --prune: list what would go, delete nothing")] = False,
    fmt: Annotated[RunsFormat, typer.Option("--format", help="output on stdout")] = RunsFormat.text,
) -> None:

    def go() -> None:
        from reviewer.core.errors import UsageError
        from reviewer.runstore import State, human_age, list_runs, prunable, remove_run

        if status is not None and status not in get_args(State):
            raise UsageError(f"Invalid value for '--status': {status!r} is not one of "
                             f"{', '.join(repr(s) for s in get_args(State))}")

        if older_than is not None and not prune:
            raise UsageError("--older-than only goes with --prune")
        if older_than is not None and older_than < 0:
            raise UsageError("--older-than must be a number of days >= 0")
        where = runs_dir or default_runs_dir()
        found = list_runs(where)
        if prune:
            doomed = prunable(found, older_than_days=older_than)
            for r in doomed:
                if not dry_run:
                    remove_run(where, r.run_id)
                sys.stdout.write(f"{'would remove' if dry_run else 'removed'} {r.run_id} ({r.status})\n")
            if not dry_run:
                list_runs(where)  # refresh the index
            err.print(f"[dim]{len(doomed)} of {len(found)} runs {'would be ' if dry_run else ''}pruned in "
                      f"{escape(str(where))}[/]", highlight=False)
            return
        if status:
            found = [r for r in found if r.status == status]
        if fmt is RunsFormat.json:
            sys.stdout.write(json.dumps([r.model_dump() for r in found], indent=2) + "\n")
            return
        if not found:
            err.print(f"no runs in {escape(str(where))}", highlight=False)
            return
        width = max(len(r.run_id) for r in found)
        # the column names on stderr: stdout stays one run a line for scripts
        sys.stderr.write(f"{'run':<{width}}  {'status':<16}  {'verdict':<11}  {'age':>7}  {'backend':<7}  submission\n")
        for r in found:
            sys.stdout.write(f"{r.run_id:<{width}}  {r.status:<16}  {r.overall or '-':<11}  "
                             f"{human_age(r.age_s()):>7}  {r.framework or '-':<7}  {r.name or r.error}\n")

    _guard(go)
