"""``kreview review | signoff | show | probe``."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from reviewer.cli.common import FailOn, OutFormat, RunsDir, _emit, _guard, _progress, app, err
from reviewer.config import LLMSettings, ReviewConfig, Tolerance, default_runs_dir
from reviewer.errors import UsageError
from tools.sandbox.limits import SandboxLimits


@app.command()
def review(
    path: Annotated[Path, typer.Argument(help="directory holding the submission and its reference")],
    fmt: Annotated[OutFormat, typer.Option("--format", help="output on stdout")] = OutFormat.text,
    runs_dir: RunsDir = None,
    seed: Annotated[Optional[int], typer.Option(help="master seed (recorded; random if omitted)")] = None,
    rubric: Annotated[Optional[Path], typer.Option(help="rubric YAML replacing the default")] = None,
    format_hint: Annotated[Optional[str], typer.Option("--format-hint", help="kernelbench|gpumode|manifest")] = None,
    fail_on: Annotated[FailOn, typer.Option("--fail-on", help="exit 3 on this overall verdict")] = FailOn.never,
    device: Annotated[str, typer.Option(help="auto|cpu|cuda")] = "auto",
    timeout: Annotated[float, typer.Option(help="seconds per sandboxed call")] = 120.0,
    memory_mb: Annotated[int, typer.Option("--memory-mb", help="sandbox address-space limit")] = 6144,
    seeds: Annotated[int, typer.Option(help="seeds for the nominal correctness check")] = 3,
    atol: Annotated[Optional[float], typer.Option(help="absolute tolerance override")] = None,
    rtol: Annotated[Optional[float], typer.Option(help="relative tolerance override")] = None,
    no_signoff: Annotated[bool, typer.Option("--no-signoff", help="finish without the human sign-off stop")] = False,
    skip: Annotated[Optional[list[str]], typer.Option(help="tool to skip (repeatable)")] = None,
    only: Annotated[Optional[list[str]], typer.Option(help="run only this tool (repeatable)")] = None,
    llm: Annotated[str, typer.Option(help="none|openai")] = "none",
    model: Annotated[Optional[str], typer.Option(help="model name [env KREVIEW_MODEL]")] = None,
    config_file: Annotated[Optional[Path], typer.Option("--config", help="config file with an [llm] table "
                                                         "[env KREVIEW_CONFIG; default ~/.config/kreview/config.toml]")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q")] = False,
) -> None:
    """Review a submission: gather evidence, judge it, draft the assessment, stop for sign-off."""

    def go() -> None:
        from reviewer.api import start_review

        if device not in ("auto", "cpu", "cuda"):
            raise UsageError(f"--device must be auto, cpu or cuda, not {device!r}")
        if llm not in ("none", "openai"):
            raise UsageError(f"--llm must be none or openai, not {llm!r}")
        config = ReviewConfig(
            runs_dir=runs_dir or default_runs_dir(), seed=seed, device=device, format_hint=format_hint,
            rubric=rubric, limits=SandboxLimits(call_timeout_s=timeout, memory_mb=memory_mb),
            correctness_seeds=seeds, tolerance=Tolerance(atol=atol, rtol=rtol), signoff=not no_signoff,
            disabled_tools=list(skip or []), only_tools=list(only) if only else None,
            llm=LLMSettings(provider=llm, model=model, config_file=config_file))
        drafter = None
        if llm == "openai":
            from reviewer.llm import make_drafter

            drafter = make_drafter(config.llm)
        result = start_review(path, config, progress=_progress(quiet or fmt is OutFormat.json), drafter=drafter)
        _emit(result, fmt)
        if fmt is not OutFormat.json and not quiet and result.status == "awaiting_signoff":
            err.print(f"[dim]run {result.run_id} awaits sign-off: kreview signoff {result.run_id} "
                      f"--approve|--reject --by NAME (or kreview serve)[/]", markup=True, highlight=False)
        if not quiet:
            err.print(f"[dim]run folder: {escape(result.run_dir)}[/]", markup=True, highlight=False)
        if fail_on is FailOn.reject and result.overall == "reject":
            raise typer.Exit(3)
        if fail_on is FailOn.needs_human and result.overall in ("reject", "needs_human"):
            raise typer.Exit(3)

    try:
        from pydantic import ValidationError

        _guard(go)
    except ValidationError as exc:  # option values that do not validate
        err.print(f"[bold red]error[/] (usage_error): {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None


@app.command()
def signoff(
    run: Annotated[str, typer.Argument(help="run id or run directory")],
    approve: Annotated[bool, typer.Option("--approve", help="approve the draft")] = False,
    reject: Annotated[bool, typer.Option("--reject", help="reject the draft")] = False,
    by: Annotated[str, typer.Option("--by", help="who decides")] = "",
    note: Annotated[str, typer.Option(help="a note recorded with the decision")] = "",
    edit: Annotated[Optional[Path], typer.Option(help="a Markdown file replacing the draft text")] = None,
    runs_dir: RunsDir = None,
    fmt: Annotated[OutFormat, typer.Option("--format")] = OutFormat.text,
) -> None:
    """Record a human decision on a draft and publish it (resumes the run's checkpoint)."""

    def go() -> None:
        from reviewer.api import signoff as do_signoff

        if approve == reject:
            raise UsageError("give exactly one of --approve or --reject")
        if not by.strip():
            raise UsageError("--by NAME is required: a sign-off records who decided")
        edited = edit.read_text() if edit else None
        result = do_signoff(run, runs_dir or default_runs_dir(), approve=approve, by=by.strip(), note=note,
                            edited_markdown=edited)
        _emit(result, fmt)

    _guard(go)


@app.command()
def show(
    run: Annotated[str, typer.Argument(help="run id or run directory")],
    runs_dir: RunsDir = None,
    fmt: Annotated[OutFormat, typer.Option("--format")] = OutFormat.text,
) -> None:
    """Print a stored run."""

    def go() -> None:
        from reviewer.api import show as do_show

        _emit(do_show(run, runs_dir or default_runs_dir()), fmt)

    _guard(go)


@app.command()
def probe(
    path: Annotated[Path, typer.Argument(help="submission directory, or a run id (prefix) to probe its submission")],
    tool: Annotated[str, typer.Option(help="tool to run")] = "correctness",
    case: Annotated[Optional[str], typer.Option(help="case as JSON (from an evidence item's rerun)")] = None,
    seed: Annotated[int, typer.Option(help="master seed when no case is given")] = 0,
    atol: Annotated[Optional[float], typer.Option()] = None,
    rtol: Annotated[Optional[float], typer.Option()] = None,
    device: Annotated[str, typer.Option(help="auto|cpu|cuda")] = "auto",
    timeout: Annotated[float, typer.Option(help="seconds per sandboxed call")] = 120.0,
    format_hint: Annotated[Optional[str], typer.Option("--format-hint")] = None,
    fmt: Annotated[OutFormat, typer.Option("--format")] = OutFormat.text,
    runs_dir: RunsDir = None,
) -> None:
    """Rerun one tool (optionally on one case) and print the evidence it produces."""

    def go() -> None:
        from reviewer.device import detect_device
        from reviewer.graph.context import make_tool_context
        from reviewer.ingest import load_submission
        from reviewer.registry import tools
        from tools.harness.case import Case

        table = tools()
        sub_path = path
        if not path.is_dir():  # a run id (or its prefix): probe the submission that run reviewed
            from reviewer.runs import find_run, read_review

            try:
                sub_path = Path(read_review(find_run(str(path), runs_dir or default_runs_dir())).submission.root)
            except UsageError:
                raise UsageError(f"{path} is neither a submission directory nor a stored run") from None
        if tool not in table:
            raise UsageError(f"unknown tool {tool!r}; registered: {', '.join(sorted(table))}")
        config = ReviewConfig(seed=seed, device=device if device in ("auto", "cpu", "cuda") else "auto",
                              format_hint=format_hint, tolerance=Tolerance(atol=atol, rtol=rtol),
                              limits=SandboxLimits(call_timeout_s=timeout))
        sub = load_submission(sub_path, format_hint)
        the_case = None
        if case:
            try:
                the_case = Case.model_validate_json(case)
            except ValueError as exc:
                raise UsageError(f"--case is not a valid case: {exc}") from exc
        with tempfile.TemporaryDirectory(prefix="kreview-probe-") as tmp:
            ctx = make_tool_context(sub, config, Path(tmp), seed, detect_device(config.device))
            instance = table[tool]()
            try:
                if the_case is not None:
                    instance.probe(ctx, the_case)
                else:
                    instance.run(ctx)
            except NotImplementedError as exc:
                raise UsageError(str(exc)) from exc
            finally:
                ctx.session.close()
            if fmt is OutFormat.json:
                sys.stdout.write(json.dumps([e.model_dump(mode="json") for e in ctx.evidence], indent=2) + "\n")
            else:
                for e in ctx.evidence:
                    sys.stdout.write(f"{e.id} [{e.outcome}] {e.summary}\n")

    _guard(go)
