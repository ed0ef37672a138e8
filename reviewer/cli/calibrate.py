"""``kreview calibrate``: agreement of the reviewer with human-graded eval sets."""

from __future__ import annotations

import sys
import time
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from reviewer.cli.batch import Address, Executor, ExecutorKind, warn
from reviewer.cli.common import Only, Timeout, _guard, app, configure, err, examples


class Baseline(str, Enum):
    kernelbench = "kernelbench"


@app.command(help="Review every case of an eval set and report agreement with its human grades."
                  + examples("kreview calibrate eval_sets/planted --workers 2 --baseline kernelbench",
                             "kreview calibrate eval_sets/hacks --only integrity_static --only integrity_runtime",
                             "kreview calibrate eval_sets/planted --force --seed 1"))
def calibrate(
    eval_set: Annotated[Path, typer.Argument(help="eval set directory, e.g. eval_sets/planted", exists=True,
                                             file_okay=False)],
    workers: Annotated[int, typer.Option(help="parallel review processes", min=1)] = 1,
    out: Annotated[Optional[Path], typer.Option(help="output directory (default .calibration/SET)")] = None,
    force: Annotated[bool, typer.Option("--force", help="redo cases already reviewed")] = False,
    baseline: Annotated[Optional[Baseline], typer.Option(help="also run a baseline")] = None,
    seed: Annotated[int, typer.Option(help="master seed for every case")] = 0,
    timeout: Timeout = None,
    only: Only = None,
    executor: Executor = ExecutorKind.local,
    address: Address = None,
) -> None:
    def go() -> None:
        from reviewer.batch.executors import RayExecutor, Resources, make_executor
        from reviewer.calibrate.evalset import load_eval_set
        from reviewer.calibrate.report import summarize, to_markdown, write_outputs
        from reviewer.calibrate.runner import run_cases
        from reviewer.rubric import load_rubric

        out_dir = out or Path(".calibration") / eval_set.resolve().name
        config = configure(cli=dict(seed=seed, signoff=False, timeout=timeout, only=list(only) if only else None))
        graded = [c.id for c in load_rubric(config.rubric).criteria]
        cases, bad = load_eval_set(eval_set, graded)
        for m in bad:
            err.print(f"[yellow]malformed case[/] {escape(m.name)}: {escape(m.why)}", markup=True, highlight=False)
        ex = make_executor(executor.value, workers=workers, address=address, warn=warn)
        resources = Resources()
        if isinstance(ex, RayExecutor) and ex.has_gpus():  # decided once for the set, not per node
            config = config.model_copy(update={"device": "cuda"})
            resources = Resources(num_gpus=1.0)
        t0 = time.monotonic()
        with ex, Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=err, disable=not sys.stderr.isatty()) as progress:
            task = progress.add_task(f"calibrating {eval_set.name}", total=len(cases))

            def done(res, cached: bool) -> None:
                progress.advance(task)
                tag = "cached" if cached else f"{res.duration_s:.0f}s"
                progress.console.print(f"[dim]{escape(res.name)}: {res.overall or 'error'} ({tag})[/]", markup=True,
                                       highlight=False)

            results = run_cases(cases, out_dir, config, workers=workers, force=force,
                                baseline=baseline is Baseline.kernelbench, on_done=done, executor=ex,
                                resources=resources)
        cal = summarize(eval_set, cases, bad, results, criteria=graded, wall_time_s=time.monotonic() - t0, workers=workers)
        paths = write_outputs(cal, out_dir)
        md = to_markdown(cal)
        if sys.stdout.isatty():
            from rich.markdown import Markdown  # markdown_it: only where Markdown is printed

            Console().print(Markdown(md))
        else:
            sys.stdout.write(md)
        err.print(f"[dim]wrote {paths['json']}, {paths['markdown']}, {paths['html']}[/]", markup=True,
                  highlight=False)

    _guard(go)
