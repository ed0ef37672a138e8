"""``kreview batch``: review many submissions on this machine or on a Ray cluster, resumably."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from reviewer.cli.common import (
    DeviceOpt,
    MemoryMb,
    Only,
    RunsDir,
    Skip,
    Timeout,
    _guard,
    app,
    configure,
    err,
    examples,
)
from reviewer.core.errors import UsageError


class BatchFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"


class ExecutorKind(str, Enum):
    local = "local"
    ray = "ray"


Executor = Annotated[ExecutorKind, typer.Option("--executor", help="local processes, or a Ray cluster "
                                                "(pip install 'kernel-reviewer\\[ray]')")]
Address = Annotated[Optional[str], typer.Option("--address", help="Ray cluster: auto | ray://HOST:10001 "
                                                 "[default: start a one-node cluster here]")]


def width(rows) -> int:
    return max([len("submission"), *(len(r.submission) for r in rows)])


def warn(message: str) -> None:
    err.print(f"[yellow]{message}[/]", highlight=False, soft_wrap=True)


@app.command(help='Review many submissions (locally or one Ray task each) into a resumable store; print a results table.'
                  + examples("kreview batch eval_sets/planted --workers 2 --format csv",
                              "kreview batch list.txt --executor ray --address auto --format json"))
def batch(
    target: Annotated[Path, typer.Argument(help="a submission directory, a directory of them, or a file "
                                           "listing them one per line")],
    executor: Executor = ExecutorKind.local,
    address: Address = None,
    workers: Annotated[int, typer.Option(help="local: parallel review processes; ray without --address: "
                                         "CPUs of the one-node cluster it starts (1: all of them)")] = 1,
    out: Annotated[Optional[Path], typer.Option(help="batch results (results/, for resuming) "
                                                "[.kreview/batches/<name>]")] = None,
    runs_dir: RunsDir = None,
    fmt: Annotated[BatchFormat, typer.Option("--format", help="results table on stdout")] = BatchFormat.text,
    force: Annotated[bool, typer.Option("--force", help="review again what the store already has")] = False,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="review again the reviewer failures "
                                               "recorded in the store")] = False,
    seed: Annotated[int, typer.Option(help="master seed of every review (same seed, same verdicts)")] = 0,
    device: DeviceOpt = None,
    timeout: Timeout = None,
    memory_mb: MemoryMb = None,
    cpus_per_review: Annotated[float, typer.Option(help="Ray: CPUs each review reserves")] = 1.0,
    memory_mb_per_review: Annotated[int, typer.Option(help="Ray: memory (MiB) each review reserves")] = 2048,
    skip: Skip = None,
    only: Only = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")] = False,
) -> None:

    def go() -> None:
        from reviewer.batch.executors import RayExecutor, make_executor
        from reviewer.batch.progress import BatchProgress
        from reviewer.batch.runner import discover, failure_summary, run_batch
        from reviewer.batch.store import BatchStore, rows_csv, rows_json

        if cpus_per_review <= 0 or memory_mb_per_review <= 0:
            raise UsageError("--cpus-per-review and --memory-mb-per-review must be positive")
        paths = discover(target)
        from reviewer.core.config import default_runs_dir

        # the reviews join the one run store: kreview runs, show and serve list them with every other run
        store = BatchStore(out or Path(".kreview/batches") / target.resolve().name, runs=runs_dir or default_runs_dir())
        config = configure(cli=dict(seed=seed, device=device, signoff=False,
                                    timeout=timeout, memory_mb=memory_mb, skip=list(skip or []),
                                    only=list(only) if only else None))
        with make_executor(executor.value, workers=workers, address=address, warn=warn) as ex:
            gpus = ex.has_gpus() if isinstance(ex, RayExecutor) else None
            progress = BatchProgress(err, f"reviewing {len(paths)} on {ex.describe()}", quiet=quiet)
            try:
                rows = run_batch(paths, store, config, ex, gpus_available=gpus, cpus_per_review=cpus_per_review,
                                 memory_mb_per_review=memory_mb_per_review, force=force, retry_failed=retry_failed,
                                 on_row=progress.row, on_start=progress.start)
            finally:
                progress.stop()
        if fmt is BatchFormat.json:
            sys.stdout.write(rows_json(rows))
        elif fmt is BatchFormat.csv:
            sys.stdout.write(rows_csv(rows))
        else:
            sys.stdout.write(f"{'verdict':<20} {'submission':<{width(rows)}}  run (kreview show RUN) or error\n")
            for r in rows:
                what = r.overall if r.status == "reviewed" else r.status
                detail = r.run_id or next(iter((r.error or "").strip().splitlines()), "")
                sys.stdout.write(f"{what:<20} {r.submission:<{width(rows)}}  {detail}\n")
        counts = failure_summary(rows)
        if not quiet:
            err.print(f"[dim]{', '.join(f'{k}: {v}' for k, v in counts.items())}; results {store.root}; runs "
                      f"{store.runs} (kreview runs)[/]",
                      highlight=False, soft_wrap=True)
        if counts.get("reviewer_failure"):
            raise typer.Exit(1)

    _guard(go)
