"""``kreview review | signoff | show | rerun`` (``probe``: the old name of ``rerun``)."""

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
    DeviceOpt,
    FailOn,
    FormatHint,
    LLMProvider,
    MemoryMb,
    Only,
    OutFormat,
    RunsDir,
    Skip,
    Timeout,
    _emit,
    _guard,
    app,
    configure,
    err,
    examples,
    require_extra,
    setting,
    tool_names,
)
from reviewer.cli.progress import reporter
from reviewer.core.config import LLMSettings, RunSettings, Tolerance, default_runs_dir
from reviewer.core.errors import UsageError

Atol = Annotated[Optional[float], setting("--atol", help="absolute tolerance override", model=Tolerance, name="atol")]
Rtol = Annotated[Optional[float], setting("--rtol", help="relative tolerance override", model=Tolerance, name="rtol")]
Verbose = Annotated[bool, typer.Option("--verbose", "-v", help="text: every check, its evidence and rerun "
                                                              "command (default: what failed, then a summary)")]
TargetOpt = Annotated[Optional[str], typer.Option("--target", help="GPU the review targets (H100, H200, A100, A10G, "
                                                 "L4), over the submission's \\[target]: the virtual device answers "
                                                 "as it")]
UserConfig = Annotated[Optional[Path], typer.Option("--user-config", envvar="KREVIEW_CONFIG", show_envvar=True,
                                                    help="your settings file, with an \\[llm] table "
                                                         "(default ~/.config/kreview/config.toml)")]
OldUserConfig = Annotated[Optional[Path], typer.Option("--config", hidden=True,
                                                       help="deprecated spelling of --user-config")]


def user_config_file(named: Path | None, old: Path | None) -> Path | None:
    """``--user-config``, or the deprecated ``--config`` of ``kreview review`` (with a note)."""
    if old is not None:
        err.print("[yellow]note[/]: kreview review --config is deprecated, use --user-config (in kreview diff and "
                  "kreview pr publish, --repo-config names the repository's file)", highlight=False, soft_wrap=True)
    return old if old is not None else named


def with_fixes(result, path: Path, config, progress, model=None):
    """The review with its verified fixes (``--fix``; ``model``: with ``--llm``, the model is asked for a patch
    where no rule fixed a criterion), stored back in the run's review.json and draft.md."""
    from reviewer.fix import with_fixes as fixed

    if progress is not None and any(c.verdict == "fail" for c in result.criteria):
        then = " (then the model's, for a criterion no rule fixes)" if model is not None else ""
        progress(f"fixes: trying rule-based patches{then}, each rerun in the sandbox")
    return fixed(result, path, config, model=model)


def target_gpu(name: str | None) -> str | None:
    """``--target``: a GPU of the virtual-device table (the repository file's ``target`` is checked by the
    same function), or a usage error listing them."""
    if name is None:
        return None
    from reviewer.pr.repoconfig import known_gpu

    try:
        return known_gpu(name)
    except ValueError as exc:
        raise UsageError(f"--{exc}") from None

@app.command(help="Review a submission: gather evidence, judge it, draft the assessment, stop for sign-off "
                   "(--author: an author's own check, not queued)."
                   + examples("kreview review examples/softmax_triton",
                              "kreview review examples/softmax_triton --author",
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
    device: DeviceOpt = None,
    timeout: Timeout = None,
    memory_mb: MemoryMb = None,
    seeds: Annotated[Optional[int], setting("--seeds", help="seeds for the nominal correctness check",
                                            model=RunSettings, name="seeds")] = None,
    atol: Atol = None,
    rtol: Rtol = None,
    no_signoff: Annotated[bool, typer.Option("--no-signoff", "--author", help="an author's check (and CI): finish "
                                             "without the human sign-off stop, no entry in the sign-off queue "
                                             "(default: a reviewer's review, queued for sign-off)")] = False,
    skip: Skip = None,
    only: Only = None,
    llm: Annotated[Optional[LLMProvider], setting("--llm", help="drafter and source reader (none: offline)",
                                                  model=LLMSettings, name="provider")] = None,
    model: Annotated[Optional[str], typer.Option(help="model name", envvar="KREVIEW_MODEL", show_envvar=True)] = None,
    user_config: UserConfig = None,
    old_config: OldUserConfig = None,
    budget: Annotated[Optional[float], setting("--budget", help="work the off-nominal probes may plan, as a multiple "
                                               "of the default (counted, not timed: docs/verdict-determinism.md)",
                                               model=RunSettings, name="budget")] = None,
    target: TargetOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")] = False,
    verbose: Verbose = False,
    unsafe_no_sandbox: Annotated[bool, typer.Option("--unsafe-no-sandbox", help="run submission code without the "
                                                    "bubblewrap/seccomp sandbox (recorded in the review)")] = False,
    fix: Annotated[bool, typer.Option("--fix", help="on a failed criterion, try rule-based patches (with --llm, "
                                      "then the model's, once per criterion no rule fixes) and show those "
                                      "verified by a sandbox rerun (a diff under the criterion; SARIF fixes); "
                                      "slower: one rerun per candidate")] = False,
) -> None:
    def go() -> None:
        from reviewer.api import start_review
        from reviewer.core.config import env_layer

        if unsafe_no_sandbox:
            from tools.engine.sandbox.isolation import UNSAFE_DESCRIPTION, allow_unsafe

            allow_unsafe()
            err.print(f"[bold red]WARNING: {UNSAFE_DESCRIPTION}[/]", highlight=False)

        named = user_config_file(user_config, old_config)
        # the user's file holds LLM settings: read when the run asks the model, or when named here (an
        # offline review is not stopped by a stale ~/.config/kreview/config.toml, as before); the llm
        # package, which loads its client, is imported only then
        user = None
        if named or llm is LLMProvider.openai:
            from reviewer.llm.settings import user_layer

            user = user_layer(named)
        config = configure(
            cli=dict(runs_dir=runs_dir or default_runs_dir(), seed=seed, device=device,
                     format_hint=format_hint.value if format_hint else None, rubric=rubric, timeout=timeout,
                     memory_mb=memory_mb, seeds=seeds, budget=budget, target=target_gpu(target), atol=atol,
                     rtol=rtol, signoff=not no_signoff, skip=list(skip or []), only=list(only) if only else None,
                     llm=dict(provider=llm.value if llm else None, model=model)),
            env=env_layer(), user=user)
        drafter = None
        if config.llm.provider == "openai":
            require_extra("llm", "openai", what="--llm openai")
            from reviewer.llm import make_drafter

            drafter = make_drafter(config.llm)
        with reporter(quiet) as progress:
            result = start_review(path, config, progress=progress, drafter=drafter)
            if fix:
                result = with_fixes(result, path, config, progress, model=getattr(drafter, "model", None))
        _emit(result, fmt, verbose=verbose)
        if fmt not in MACHINE and not quiet and result.status == "awaiting_signoff":
            err.print(f"[dim]reviewer mode: run {result.run_id} is queued for sign-off: kreview signoff "
                      f"{result.run_id} --approve|--reject --by NAME (or kreview serve). Checking your own "
                      f"kernel? --author leaves no queue entry.[/]", markup=True, highlight=False, soft_wrap=True)
        elif fmt not in MACHINE and not quiet and result.status == "completed":
            err.print("[dim]author mode (--author/--no-signoff): nothing queued for sign-off; without the flag the "
                      "review is queued for a reviewer's decision.[/]", markup=True, highlight=False, soft_wrap=True)
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
                                                   "kreview show 20261202-152522-1ab99d -v",
                                                   "kreview show 20261202-152522-1ab99d --format json"))
def show(
    run: Annotated[str, typer.Argument(help="run id or run directory")],
    runs_dir: RunsDir = None,
    fmt: Annotated[OutFormat, typer.Option("--format", help="output on stdout")] = OutFormat.text,
    verbose: Verbose = False,
) -> None:
    def go() -> None:
        from reviewer.api import show as do_show

        _emit(do_show(run, runs_dir or default_runs_dir()), fmt, verbose=verbose)

    _guard(go)


def reproduced(items: list, tool: str, original: str | None) -> list:
    """The rerun's evidence, with the item that reproduces ``original`` (an id of the review) under that id:
    the item of the same id, else the tool's only item (a one-case rerun numbers its items from 1)."""
    if original is None:
        return items
    if original.rsplit("-", 1)[0] != tool:
        raise UsageError(f"--evidence {original} is not an item of --tool {tool}")
    mine = [e for e in items if e.tool == tool]
    match = next((e for e in mine if e.id == original), mine[0] if len(mine) == 1 else None)
    if match is None:
        err.print(f"[yellow]note[/]: the rerun gave {len(mine)} {tool} items; none is {original} by number, so "
                  "each keeps its own id", highlight=False, soft_wrap=True)
        return items
    return [e.model_copy(update={"id": original}) if e is match else e for e in items]


@app.command(help="Rerun one tool (optionally on one case) and print the evidence it produces; exit 1 when an "
                  "item of the tool fails (so `git bisect run` works)."
                   + examples("kreview rerun examples/softmax_triton --tool correctness",
                              "kreview rerun examples/gelu_triton_buggy --tool correctness "
                              "--case '{\"id\":\"correctness-0-0\",\"seed\":1}' --evidence correctness-1",
                              "git bisect run kreview rerun examples/gelu_triton_buggy --tool correctness"))
def rerun(
    path: Annotated[Path, typer.Argument(help="submission directory, or a run id (prefix) to rerun on its submission")],
    tool: Annotated[str, typer.Option(help="tool to run", callback=lambda v: tool_names([v])[0])] = "correctness",
    case: Annotated[Optional[str], typer.Option(help="case as JSON (from an evidence item's rerun)")] = None,
    seed: Annotated[int, typer.Option(help="master seed of the review (the rerun command carries it)")] = 0,
    budget: Annotated[Optional[float], setting("--budget", help="work budget multiple of the review",
                                               model=RunSettings, name="budget")] = None,
    target: TargetOpt = None,
    atol: Atol = None,
    rtol: Rtol = None,
    device: DeviceOpt = None,
    timeout: Timeout = None,
    format_hint: Annotated[Optional[FormatHint], typer.Option("--format-hint",
                                                              help="force the submission format")] = None,
    fmt: Annotated[OutFormat, typer.Option("--format", help="output on stdout")] = OutFormat.text,
    unsafe_no_sandbox: Annotated[bool, typer.Option("--unsafe-no-sandbox", help="run submission code without the "
                                                    "sandbox")] = False,
    runs_dir: RunsDir = None,
    evidence: Annotated[Optional[str], typer.Option("--evidence", metavar="ID",
                                                    help="the review's evidence id this rerun reproduces: the item "
                                                         "is printed under that id")] = None,
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
        from tools.engine.registry import rerun_chain, tools
        from tools.engine.harness.case import Case

        if fmt in (OutFormat.sarif, OutFormat.junit):
            raise UsageError(f"--format {fmt.value} describes a review; rerun prints evidence (text or json)")
        table = tools()
        sub_path = path
        if not path.is_dir():  # a run id (or its prefix): rerun on the submission that run reviewed
            from reviewer.runs import find_run, read_review

            try:
                sub_path = Path(read_review(find_run(str(path), runs_dir or default_runs_dir())).submission.root)
            except UsageError:
                raise UsageError(f"{path} is neither a submission directory nor a stored run") from None
        if tool not in table:
            raise UsageError(f"unknown tool {tool!r}; registered: {', '.join(sorted(table))}")
        hint = format_hint.value if format_hint else None
        config = configure(cli=dict(seed=seed, device=device, format_hint=hint,
                                    budget=budget, target=target_gpu(target), atol=atol, rtol=rtol, timeout=timeout))
        from reviewer.rubric import load_rubric
        from tools.engine.registry import declared_criteria

        load_rubric(config.rubric, tools=declared_criteria())  # a tool naming an unknown criterion: as in review
        sub = load_submission(sub_path, hint, config.target_gpu)
        the_case = None
        if case:
            try:
                the_case = Case.model_validate_json(case)
            except ValueError as exc:
                raise UsageError(f"--case is not a valid case: {exc}") from exc
        with tempfile.TemporaryDirectory(prefix="kreview-rerun-") as tmp:
            ctx = make_tool_context(sub, config, Path(tmp), seed, detect_device(config.device))
            try:
                for step in rerun_chain(tool):  # the tool, after those whose facts it reads (Tool.needs)
                    instance = step()
                    if the_case is not None:
                        instance.rerun_case(ctx, the_case)
                    else:
                        instance.run(ctx)
            except NotImplementedError as exc:
                raise UsageError(str(exc)) from exc
            finally:
                ctx.session.close()
            items = reproduced(ctx.evidence, tool, evidence)
            if fmt is OutFormat.json:
                sys.stdout.write(json.dumps([e.model_dump(mode="json") for e in items], indent=2) + "\n")
            else:
                from reviewer.formats.text import rerun_report

                sys.stdout.write(rerun_report(items, tool))
            judged = [e for e in items if e.id == evidence] or [e for e in items if e.tool == tool]
            if any(e.outcome == "fail" for e in judged):
                raise typer.Exit(1)  # the item still fails: `git bisect run kreview rerun ...` marks the commit bad

    _guard(go)


# Rationale: `probe` was this command's name; evidence stored by earlier reviews carries rerun
# commands that spell it, and they must keep working.
app.command("probe", hidden=True, help="The old name of `kreview rerun`; stored rerun commands use it."
            + examples("kreview probe examples/softmax_triton --tool correctness"))(rerun)
