"""``kreview compare DIR_A DIR_B [...]``: review each implementation of one task, then put them side by
side (reviewer/comparison.py)."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from reviewer.cli.common import DeviceOpt, Only, OutFormat, RunsDir, Skip, _guard, app, configure, examples
from reviewer.core.config import default_runs_dir
from reviewer.core.errors import UsageError


@app.command(help='Review several implementations of one task and compare them: a table and a ranking with reasons.'
                  + examples("kreview compare examples/compare_rowsum/triton_row_blocks examples/compare_rowsum/triton_column_walk",
                              "kreview compare A B C --format markdown"))
def compare(
    paths: Annotated[list[Path], typer.Argument(help="two or more submission directories of the same task")],
    fmt: Annotated[OutFormat, typer.Option("--format", help="output on stdout")] = OutFormat.text,
    runs_dir: RunsDir = None,
    seed: Annotated[Optional[int], typer.Option(help="master seed, the same for every implementation")] = None,
    device: DeviceOpt = None,
    skip: Skip = None,
    only: Only = None,
    case: Annotated[Optional[str], typer.Option(help="rerun one difference in behaviour: run every pair on this case "
                                                     "(JSON, from a comparison's rerun) and nothing else")] = None,
    behaviour: Annotated[bool, typer.Option("--behaviour/--no-behaviour",
                                            help="run the implementations on each other's configurations and "
                                                 "report where they disagree (shrunk)")] = True,
) -> None:

    def go() -> None:
        from reviewer.api import start_review
        from reviewer.comparison import compare as do_compare
        from reviewer.comparison import render
        from reviewer.disagreement import behaviour as find_behaviour
        from reviewer.disagreement import original_of, rerun
        from tools.engine.harness.case import Case

        if len(paths) < 2:
            raise UsageError("compare needs at least two submission directories")
        names = [p.resolve().name for p in paths]
        if len(set(names)) != len(names):
            raise UsageError(f"implementations are named by their directory, and these repeat: {names}")
        for p in paths:
            if not p.is_dir():
                raise UsageError(f"not a directory: {p}")
        # Rationale: every implementation gets the same seed, hence the same inputs and probes.
        shared_seed = seed if seed is not None else secrets.randbelow(2**31 - 1)
        config = configure(cli=dict(runs_dir=runs_dir or default_runs_dir(), seed=shared_seed,
                                    device=device, signoff=False, skip=list(skip or []),
                                    only=list(only) if only else None))
        original = original_of(list(zip(names, paths)))
        if case is not None:
            try:
                the_case = Case.model_validate_json(case)
            except ValueError as exc:
                raise UsageError(f"--case is not a valid case: {exc}") from exc
            if seed is None:
                raise UsageError("--case needs the --seed of the comparison it comes from")
            checks = rerun(list(zip(names, paths)), config, shared_seed, the_case, original)
            if fmt.value == "json":
                sys.stdout.write("[" + ",\n".join(c.model_dump_json(indent=2) for c in checks) + "]\n")
            else:
                for c in checks:
                    a, b = (s.name for s in c.sides)
                    sys.stdout.write(f"{a} vs {b} on {the_case.spec()}: {'disagree' if c.disagree else 'agree'} "
                                     f"({c.kind}): {c.detail}; {c.judge or 'no float64 judge'}; outputs sha256 "
                                     + ", ".join(f"{s.name} {s.output_digest or s.status}" for s in c.sides) + "\n")
            return
        reviews = [(n, p, start_review(p, config)) for n, p in zip(names, paths)]
        reports, notes = find_behaviour(reviews, config, shared_seed, original) if behaviour else ([], [])
        sys.stdout.write(render(do_compare(reviews, reports, original, notes), fmt.value) + "\n")

    _guard(go)
