"""Shared pieces of the ``kreview`` command line: the app, output, error mapping."""

from __future__ import annotations

import re
import sys
import traceback
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional, get_args

import typer
import typer.core
from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from reviewer.core.config import (
    OPTION_PATHS,
    Provider,
    ReviewConfig,
    RunSettings,
    load_config,
)
from reviewer.core.errors import KReviewError, ReviewTerminated, UsageError
from reviewer.core.limits import SandboxLimits
from tools.engine.formats import format_names

err = Console(stderr=True)

try:  # typer 0.2x carries its own copy of click; its exceptions are the ones raised
    from typer._click import exceptions as _cx
except ImportError:  # pragma: no cover - a typer that uses the click package
    from click import exceptions as _cx

# Rationale: the validation libraries word their messages for programmers; a user reads ours.
_LIBRARY_NOISE = re.compile(r"\s*For further information visit https?://errors\.pydantic\.dev\S*|"
                            r"(?:(?<=: )|(?<=\n  )|^)(Value|Assertion) error, |\s*\[type=[a-z_]+, input_value=.*?\]|"
                            r"\d+ validation errors? for \w+\n?")


def plain_message(text: str) -> str:
    """A message without validation-library internals (its error kinds, help links, 'Value error,')."""
    return _LIBRARY_NOISE.sub("", text)


def _usage(exc: _cx.ClickException) -> None:
    """A bad command line, said in the one error style of ``_fail``, with the command's help to read."""
    ctx = getattr(exc, "ctx", None)
    hint = f"\nsee: {ctx.command_path} --help" if ctx is not None else ""
    err.print(f"[bold red]error[/] (usage_error): {escape(plain_message(exc.format_message()))}{escape(hint)}",
              highlight=False, soft_wrap=True)


class _App(typer.core.TyperGroup):
    """The root command: click's usage errors (bad option values, unknown options) in our error style
    instead of a boxed panel, with the same exit status (2)."""

    def main(self, args=None, prog_name=None, complete_var=None,  # type: ignore[override]
             standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _cx.NoArgsIsHelpError:  # bare `kreview`: the help, as before
            return super().main(args, prog_name, complete_var, standalone_mode=True, **extra)
        except _cx.ClickException as exc:
            _usage(exc)
            sys.exit(exc.exit_code)
        except typer.Abort:
            err.print("aborted", highlight=False)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(cls=_App, no_args_is_help=True, add_completion=True, pretty_exceptions_enable=False,
                  rich_markup_mode="rich")


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("kernel-reviewer")
        except PackageNotFoundError:  # running from a source tree that was never installed
            v = "unknown (not installed)"
        sys.stdout.write(f"kreview {v}\n")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="print the version and exit")] = False,
) -> None:
    """Evidence-backed reviews of GPU and accelerator kernels (CUDA, Triton, Pallas, NKI).

    Every verdict cites evidence with a command that reruns it; a human signs off before anything is published.

    Start with [bold]kreview review examples/softmax_triton[/]; [bold]kreview COMMAND --help[/] shows examples.
    """


def examples(*lines: str) -> str:
    """An "Examples" block for a command's help (kept on separate lines, not rewrapped)."""
    return "\n\n[bold]Examples[/]\n\n" + "\n\n".join(f"  [cyan]{escape(line)}[/]" for line in lines)


class OutFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"
    sarif = "sarif"
    junit = "junit"


# the command line's choices, made from the one list of each (formats: the registered plugins)
FormatHint = Enum("FormatHint", {name: name for name in format_names()}, type=str)  # type: ignore[misc]
LLMProvider = Enum("LLMProvider", {name: name for name in get_args(Provider)}, type=str)  # type: ignore[misc]


class FailOn(str, Enum):
    never = "never"
    reject = "reject"
    needs_human = "needs_human"


RunsDir = Annotated[Optional[Path], typer.Option("--runs-dir", envvar="KREVIEW_RUNS_DIR", show_envvar=True,
                                                  help="where runs are stored (default: .kreview/runs under the "
                                                       "current directory)")]


def require_extra(extra: str, *modules: str, what: str) -> None:
    """One line naming the extra to install when ``what`` needs modules that are absent."""
    from reviewer.core.errors import MissingExtra
    from tools.engine.compat import missing_extra

    why = missing_extra(extra, *modules)
    if why:
        raise MissingExtra(f"{what} needs the [{extra}] extra; {why}")


def tool_names(values: Optional[list[str]]) -> Optional[list[str]]:
    """Callback for ``--only``/``--skip``: every name must be a registered tool (a typo would silently run
    nothing and still exit 0)."""
    if not values:
        return values
    import sys

    if "tools.engine.registry" in sys.modules:  # loaded already (a host program, tests): its full table
        from reviewer.core.errors import ToolError
        from tools.engine.registry import tools

        try:
            known = sorted(tools())
        except ToolError as exc:  # an installed plugin is broken: say which, not a traceback
            raise typer.BadParameter(f"the installed tools cannot be listed: {exc}") from None
    else:
        # the entry points' names alone: importing every tool imports torch, seconds for a typo (a broken
        # plugin is then named when the review loads it)
        from tools.engine.plugin_names import registered_names

        known = registered_names()
        if not known:
            raise typer.BadParameter("no tools registered: is kernel-reviewer installed (pip install .)?")
    bad = [v for v in values if v not in known]
    if bad:
        import difflib

        hints = []
        for b in bad:
            close = difflib.get_close_matches(b, known, n=1)
            hints.append(f"{b!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise typer.BadParameter(f"unknown tool {', '.join(hints)}; tools: {', '.join(known)}")
    return values


Only = Annotated[Optional[list[str]], typer.Option("--only", callback=tool_names, metavar="TOOL",
                                                   help="run only this tool (repeatable); see the tool table in "
                                                        "README")]
Skip = Annotated[Optional[list[str]], typer.Option("--skip", callback=tool_names, metavar="TOOL",
                                                   help="skip this tool (repeatable)")]


def setting(*decls: str, help: str, model: type[BaseModel], name: str, **kw: Any) -> Any:
    """A ``typer.Option`` for a configuration setting that defaults to None (unset, so the model's default
    applies): its help shows the model's default, and its range is the model's ``ge``/``le`` bounds (a
    strict ``gt``/``lt`` is checked when the configuration is loaded, ``configure``)."""
    import annotated_types as at

    field = model.model_fields[name]
    for m in field.metadata:
        if isinstance(m, at.Ge):
            kw.setdefault("min", m.ge)
        elif isinstance(m, at.Le):
            kw.setdefault("max", m.le)
    default = field.get_default(call_default_factory=True)
    shown = f" \\[default: {getattr(default, 'value', default)}]" if default is not None else ""
    return typer.Option(*decls, help=help + shown, **kw)


def device_choice(value: Optional[str]) -> Optional[str]:
    """Callback for ``--device``: auto, cpu, cuda or cuda:N."""
    import re

    from reviewer.core.config import DEVICE_PATTERN

    if value is not None and not re.match(DEVICE_PATTERN, value):
        raise typer.BadParameter(f"{value!r} is not a device; use auto, cpu, cuda or cuda:N (N a GPU index)")
    return value


DeviceOpt = Annotated[Optional[str], setting("--device", help="where kernels run (auto: the first CUDA device when "
                                             "present; cuda:N: that GPU only)", model=RunSettings, name="device",
                                             metavar="<auto|cpu|cuda[:N]>", callback=device_choice)]
Timeout = Annotated[Optional[float], setting("--timeout", help="seconds per sandboxed call", model=SandboxLimits,
                                             name="call_timeout_s")]
MemoryMb = Annotated[Optional[int], setting("--memory-mb", help="sandbox address-space limit in MiB",
                                            model=SandboxLimits, name="memory_mb")]


def configure(**layers: Any) -> ReviewConfig:
    """``load_config`` for a command: a value the configuration refuses (out of range, a setting that does
    not exist) is a usage error (exit 2) naming the option the user wrote."""
    from pydantic import ValidationError

    try:
        return load_config(**layers)
    except ValidationError as exc:
        flags = {".".join(path): name for name, path in OPTION_PATHS.items()}
        lines = []
        for e in exc.errors():
            where = ".".join(str(p) for p in e["loc"])
            lines.append(f"Invalid value for '--{flags.get(where, where).replace('_', '-')}': "
                         f"{plain_message(e['msg'])}")
        raise UsageError("\n".join(lines)) from None


def _fail(exc: KReviewError) -> typer.Exit:
    err.print(f"[bold red]error[/] ({exc.status}): {escape(plain_message(str(exc)))}", highlight=False,
              soft_wrap=True)
    return typer.Exit(exc.exit_code)


MACHINE = (OutFormat.json, OutFormat.sarif, OutFormat.junit)


def _emit(review, fmt: OutFormat, *, verbose: bool = False) -> None:
    _annotate(review, fmt)
    if fmt is OutFormat.json:
        sys.stdout.write(review.model_dump_json(indent=2) + "\n")
        return
    if fmt is OutFormat.sarif:
        import json

        from reviewer.formats.sarif import to_sarif

        sys.stdout.write(json.dumps(to_sarif(review), indent=2) + "\n")
        return
    if fmt is OutFormat.junit:
        from reviewer.formats.junit import to_junit

        sys.stdout.write(to_junit(review))
        return
    if fmt is OutFormat.text:  # plain text on a terminal and off it alike: Markdown only when asked for
        from reviewer.formats.text import render_text

        sys.stdout.write(render_text(review, verbose=verbose))
        return
    from reviewer.drafting.render import render_markdown

    # the draft as published: a sign-off's edited text, else the review rendered afresh
    edited = review.signoff is not None and review.signoff.edited and review.draft and review.draft.markdown
    md = review.draft.markdown if edited else render_markdown(review)
    if sys.stdout.isatty():
        print_markdown(Console(), md)
    else:
        sys.stdout.write(md + "\n")


def _annotate(review, fmt: OutFormat) -> None:
    """In GitHub Actions, workflow-command annotations for failed and unverified criteria: on stdout with
    the human formats, on stderr (which the runner also reads) when stdout carries a machine format."""
    from reviewer.formats.github_annotations import annotations, in_actions

    if not in_actions():
        return
    stream = sys.stderr if fmt in MACHINE else sys.stdout
    for line in annotations(review):
        stream.write(line + "\n")
    stream.flush()


_COMMAND_ITEM = re.compile(r"^\s*[-*] .*`kreview [^`]+`")


def print_markdown(console: Console, md: str) -> None:
    """Markdown for a terminal, except list items that hold a ``kreview ...`` command: those are printed
    as plain text without wrapping (the terminal's own soft wrap keeps them one line to copy), since Rich
    would break a rerun command in the middle of its JSON."""
    block: list[str] = []
    fence = False

    def flush() -> None:
        if block:
            from rich.markdown import Markdown  # markdown_it: only where Markdown is printed

            console.print(Markdown("\n".join(block)))
            block.clear()

    for line in md.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        if not fence and _COMMAND_ITEM.match(line):
            flush()
            console.print(Text(" " + line.strip().replace("`", "")), soft_wrap=True)
        else:
            block.append(line)
    flush()


def _guard(fn):
    """Map reviewer errors to their exit codes and anything unexpected to exit 1."""
    try:
        return fn()
    except typer.Exit:
        raise
    except (KeyboardInterrupt, ReviewTerminated) as exc:
        # the run (if one was started) is recorded as failed, its sandboxes are gone
        err.print(f"[bold red]interrupted[/] ({type(exc).__name__}): the review stopped; see `kreview show` "
                  "for the run it left", highlight=False)
        raise typer.Exit(143 if isinstance(exc, ReviewTerminated) else 130) from None
    except KReviewError as exc:
        raise _fail(exc) from None
    except Exception as exc:  # noqa: BLE001 - the reviewer itself failed: say so, exit 1
        err.print(f"[bold red]kreview failed[/]: {type(exc).__name__}: {escape(str(exc))}", highlight=False)
        err.print(traceback.format_exc(), markup=False, highlight=False)
        raise typer.Exit(1) from None


