"""``kreview compare DIR_A DIR_B [...]``: review each implementation of one task, then put them side by
side (reviewer/comparison.py)."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from reviewer.cli.common import OutFormat, RunsDir, _guard, app, examples
from reviewer.core.config import default_runs_dir, load_config
from reviewer.core.errors import UsageError


@app.command(help='Review several implementations of one task and compare them: a table and a ranking with reasons.'
                  + examples("kreview compare examples/compare_rowsum/triton_row_blocks examples/compare_rowsum/triton_column_walk",
                              "kreview compare A B C --format markdown"))
def compare(
    paths: Annotated[list[Path], typer.Argument(help="two or more submission directories of the same task")],
    fmt: Annotated[OutFormat, typer.Option("--format", help="output on stdout")] = OutFormat.text,
    runs_dir: RunsDir = None,
    seed: Annotated[Optional[int], typer.Option(help="master seed, the same for every implementation")] = None,
    device: Annotated[str, typer.Option(help="auto|cpu|cuda")] = "auto",
    skip: Annotated[Optional[list[str]], typer.Option(help="tool to skip (repeatable)")] = None,
    only: Annotated[Optional[list[str]], typer.Option(help="run only this tool (repeatable)")] = None,
) -> None:

    def go() -> None:
        from reviewer.api import start_review
        from reviewer.comparison import compare as do_compare
        from reviewer.comparison import render

        if len(paths) < 2:
            raise UsageError("compare needs at least two submission directories")
        names = [p.resolve().name for p in paths]
        if len(set(names)) != len(names):
            raise UsageError(f"implementations are named by their directory, and these repeat: {names}")
        for p in paths:
            if not p.is_dir():
                raise UsageError(f"not a directory: {p}")
        if device not in ("auto", "cpu", "cuda"):
            raise UsageError(f"--device must be auto, cpu or cuda, not {device!r}")
        # Rationale: every implementation gets the same seed, hence the same inputs and probes.
        shared_seed = seed if seed is not None else secrets.randbelow(2**31 - 1)
        config = load_config(cli=dict(runs_dir=runs_dir or default_runs_dir(), seed=shared_seed,
                                      device=device, signoff=False, skip=list(skip or []),
                                      only=list(only) if only else None))
        reviews = [(n, p, start_review(p, config)) for n, p in zip(names, paths)]
        sys.stdout.write(render(do_compare(reviews), fmt.value) + "\n")

    _guard(go)
