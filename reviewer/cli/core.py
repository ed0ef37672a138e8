"""``kreview review | signoff | show | probe``."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from reviewer.cli.common import (
    MACHINE,
    Device,
    FailOn,
    FormatHint,
    LLMProvider,
    Only,
    OutFormat,
    RunsDir,
    Skip,
    _emit,
    _guard,
    app,
    err,
    examples,
    require_extra,
    tool_names,
)
from reviewer.cli.progress import reporter
from reviewer.core.config import default_runs_dir, load_config
from reviewer.core.errors import UsageError



def target_gpu(name: str | None) -> str | None:
    """``--target``: a GPU of the virtual-device table, or a usage error listing them."""
    if name is None:
        return None
    from tools.engine.harness.virtual_gpu import known_gpus, spec_for

    spec = spec_for(name)
    if "is not in the table" in spec["chosen_by"]:
        raise UsageError(f"--target {name!r} is not a GPU the reviewer knows; choose one of {', '.join(known_gpus())}")
    return spec["key"]

@app.command(help="Review a submission: gather evidence, judge it, draft the assessment, stop for sign-off."
                   + examples("kreview review examples/softmax_triton",
                              "kreview review kernels/relu --format json --seed 0 --fail-on reject",
                              "kreview review kernels/relu --only correctness --only generality --atol 1e-4",
                              "kreview review kernels/relu --llm openai --model gpt-4o"))
def review(
    path: Annotated[Path, typer.Argument(help="directory holding the submission and its reference")],
    fmt: Annotated[OutFormat, typer.Option("--format", help="output on stdout")] = OutFormat.text,
    runs_dir: RunsDir = None,
    seed: Annotated[Optional[int], typer.Option(help="master seed (recorded; random if omitted)")] = None,
    rubric: Annotated[Optional[Path], typer.Option(help="rubric YAML replacing the default", exists=True,
                                                   dir_okay=False)] = None,
    format_hint: Annotated[Optional[FormatHint], typer.Option("--format-hint",
                                                              help="force the submission format")] = None,
    fail_on: Annotated[FailOn, typer.Option("--fail-on", help="exit 3 on this overall verdict "
                                                              "(needs_human: also on reject)")] = FailOn.never,
    device: Annotated[Device, typer.Option(help="where kernels run (auto: CUDA when present)")] = Device.auto,
    timeout: Annotated[float, typer.Option(help="seconds per sandboxed call", min=1.0)] = 120.0,
    memory_mb: Annotated[int, typer.Option("--memory-mb", help="sandbox address-space limit in MiB",
                                           min=3072)] = 6144,
    seeds: Annotated[int, typer.Option(help="seeds for the nominal correctness check", min=1, max=50)] = 3,
    atol: Annotated[Optional[float], typer.Option(help="absolute tolerance override", min=0.0)] = None,
    rtol: Annotated[Optional[float], typer.Option(help="relative tolerance override", min=0.0)] = None,
    no_signoff: Annotated[bool, typer.Option("--no-signoff", help="finish without the human sign-off stop")] = False,
    skip: Skip = None,
    only: Only = None,
    llm: Annotated[LLMProvider, typer.Option(help="drafter and source reader (none: offline)")] = LLMProvider.none,
    model: Annotated[Optional[str], typer.Option(help="model name", envvar="KREVIEW_MODEL", show_envvar=True)] = None,
    config_file: Annotated[Optional[Path], typer.Option("--config", envvar="KREVIEW_CONFIG", show_envvar=True,
                                                         help="config file with an \\[llm] table "
                                                              "(default ~/.config/kreview/config.toml)")] = None,
    budget: Annotated[float, typer.Option(help="work the off-nominal probes may plan, as a multiple of the "
                                               "default (counted, not timed: docs/verdict-determinism.md)",
                                          min=0.01, max=100.0)] = 1.0,
    target: Annotated[Optional[str], typer.Option("--target", help="GPU the review targets (H100, H200, A100, A10G, "
                                                   "L4), over the submission's [target]: the virtual device answers "
                                                   "as it")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")] = False,
    unsafe_no_sandbox: Annotated[bool, typer.Option("--unsafe-no-sandbox", help="run submission code without the "
                                                    "bubblewrap/seccomp sandbox (recorded in the review)")] = False,
) -> None:
    def go() -> None:
        from pydantic import ValidationError

        from reviewer.api import start_review

        if unsafe_no_sandbox:
            from tools.engine.sandbox.isolation import UNSAFE_DESCRIPTION, allow_unsafe

            allow_unsafe()
            err.print(f"[bold red]WARNING: {UNSAFE_DESCRIPTION}[/]", highlight=False)

        try:
            config = load_config(cli=dict(
                runs_dir=runs_dir or default_runs_dir(), seed=seed, device=device.value,
                format_hint=format_hint.value if format_hint else None,
                rubric=rubric, limits=dict(call_timeout_s=timeout, memory_mb=memory_mb),
                seeds=seeds, budget=budget, target_gpu=target_gpu(target), tolerance=dict(atol=atol, rtol=rtol),
                signoff=not no_signoff, skip=list(skip or []), only=list(only) if only else None,
                llm=dict(provider=llm.value, model=model, config_file=config_file)))
        except ValidationError as exc:  # a combination the options' own checks cannot see
            raise UsageError(f"invalid options:\n{exc}") from None
        drafter = None
        if llm is LLMProvider.openai:
            require_extra("llm", "openai", what="--llm openai")
            from reviewer.llm import make_drafter

            drafter = make_drafter(config.llm)
        with reporter(quiet) as progress:
            result = start_review(path, config, progress=progress, drafter=drafter)
        _emit(result, fmt)
        if fmt not in MACHINE and not quiet and result.status == "awaiting_signoff":
            err.print(f"[dim]run {result.run_id} awaits sign-off: kreview signoff {result.run_id} "
                      f"--approve|--reject --by NAME (or kreview serve)[/]", markup=True, highlight=False,
                      soft_wrap=True)
        if not quiet:
            err.print(f"[dim]run folder: {escape(result.run_dir)}[/]", markup=True, highlight=False)
        if fail_on is FailOn.reject and result.overall == "reject":
            raise typer.Exit(3)
        if fail_on is FailOn.needs_human and result.overall in ("reject", "needs_human"):
            raise typer.Exit(3)

    _guard(go)


@app.command(help="Record a human decision on a draft and publish it (resumes the run's checkpoint)."
                   + examples("kreview signoff 20261202-152522-1ab99d --approve --by Ada",
                              "kreview signoff 20261202-152522-1ab99d --reject --by Ada --note 'tanh GELU, not erf'",
                              "kreview signoff .kreview/runs/20261202-152522-1ab99d --approve --by Ada --edit draft.md"))
def signoff(
    run: Annotated[str, typer.Argument(help="run id or run directory")],
    approve: Annotated[bool, typer.Option("--approve", help="approve the draft")] = False,
    reject: Annotated[bool, typer.Option("--reject", help="reject the draft")] = False,
    by: Annotated[str, typer.Option("--by", help="who decides (required)")] = "",
    note: Annotated[str, typer.Option(help="a note recorded with the decision")] = "",
    edit: Annotated[Optional[Path], typer.Option(help="a Markdown file replacing the draft text", exists=True,
                                                 dir_okay=False)] = None,
    runs_dir: RunsDir = None,
    fmt: Annotated[OutFormat, typer.Option("--format", help="output on stdout")] = OutFormat.text,
) -> None:
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


@app.command(help="Print a stored run." + examples("kreview show 20261202-152522-1ab99d",
                                                   "kreview show 20261202-152522-1ab99d --format json"))
def show(
    run: Annotated[str, typer.Argument(help="run id or run directory")],
    runs_dir: RunsDir = None,
    fmt: Annotated[OutFormat, typer.Option("--format", help="output on stdout")] = OutFormat.text,
) -> None:
    def go() -> None:
        from reviewer.api import show as do_show

        _emit(do_show(run, runs_dir or default_runs_dir()), fmt)

    _guard(go)


@app.command(help="Rerun one tool (optionally on one case) and print the evidence it produces."
                   + examples("kreview probe examples/softmax_triton --tool correctness",
                              "kreview probe examples/gelu_triton_buggy --tool correctness "
                              "--case '{\"id\":\"correctness-0-0\",\"seed\":1}'"))
def probe(
    path: Annotated[Path, typer.Argument(help="submission directory, or a run id (prefix) to probe its submission")],
    tool: Annotated[str, typer.Option(help="tool to run", callback=lambda v: tool_names([v])[0])] = "correctness",
    case: Annotated[Optional[str], typer.Option(help="case as JSON (from an evidence item's rerun)")] = None,
    seed: Annotated[int, typer.Option(help="master seed of the review (the rerun command carries it)")] = 0,
    budget: Annotated[float, typer.Option(help="work budget multiple of the review", min=0.01, max=100.0)] = 1.0,
    target: Annotated[Optional[str], typer.Option("--target", help="GPU the review targets (H100, H200, A100, A10G, "
                                                   "L4), over the submission's [target]: the virtual device answers "
                                                   "as it")] = None,
    atol: Annotated[Optional[float], typer.Option(help="absolute tolerance override", min=0.0)] = None,
    rtol: Annotated[Optional[float], typer.Option(help="relative tolerance override", min=0.0)] = None,
    device: Annotated[Device, typer.Option(help="where kernels run (auto: CUDA when present)")] = Device.auto,
    timeout: Annotated[float, typer.Option(help="seconds per sandboxed call", min=1.0)] = 120.0,
    format_hint: Annotated[Optional[FormatHint], typer.Option("--format-hint",
                                                              help="force the submission format")] = None,
    fmt: Annotated[OutFormat, typer.Option("--format", help="output on stdout")] = OutFormat.text,
    unsafe_no_sandbox: Annotated[bool, typer.Option("--unsafe-no-sandbox", help="run submission code without the "
                                                    "sandbox")] = False,
    runs_dir: RunsDir = None,
) -> None:
    def go() -> None:
        from reviewer.device import detect_device
        from tools.engine.sandbox.isolation import UNSAFE_DESCRIPTION, allow_unsafe, require

        if unsafe_no_sandbox:
            allow_unsafe()
            err.print(f"[bold red]WARNING: {UNSAFE_DESCRIPTION}[/]", highlight=False)
        require()
        from reviewer.graph.context import make_tool_context
        from reviewer.ingest import load_submission
        from tools.engine.registry import probe_chain, tools
        from tools.engine.harness.case import Case

        if fmt in (OutFormat.sarif, OutFormat.junit):
            raise UsageError(f"--format {fmt.value} describes a review; probe prints evidence (text or json)")
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
        hint = format_hint.value if format_hint else None
        config = load_config(cli=dict(seed=seed, device=device.value, format_hint=hint, budget=budget,
                                      target_gpu=target_gpu(target), tolerance=dict(atol=atol, rtol=rtol),
                                      limits=dict(call_timeout_s=timeout)))
        sub = load_submission(sub_path, hint, config.target_gpu)
        the_case = None
        if case:
            try:
                the_case = Case.model_validate_json(case)
            except ValueError as exc:
                raise UsageError(f"--case is not a valid case: {exc}") from exc
        with tempfile.TemporaryDirectory(prefix="kreview-probe-") as tmp:
            ctx = make_tool_context(sub, config, Path(tmp), seed, detect_device(config.device))
            try:
                for step in probe_chain(tool):  # the tool, after those whose facts it reads (Tool.probe_after)
                    instance = step()
                    if the_case is not None:
                        instance.rerun_case(ctx, the_case)
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
