"""Shared pieces of the ``kreview`` command line: the app, output, error mapping."""

from __future__ import annotations

import sys
import traceback
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape

from reviewer.errors import KReviewError, ReviewTerminated

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Evidence-backed reviews of GPU and accelerator kernels (CUDA, Triton, Pallas, NKI).")
err = Console(stderr=True)


class OutFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


class FailOn(str, Enum):
    never = "never"
    reject = "reject"
    needs_human = "needs_human"


RunsDir = Annotated[Optional[Path], typer.Option("--runs-dir", help="where runs are stored [env KREVIEW_RUNS_DIR]")]


def _fail(exc: KReviewError) -> typer.Exit:
    err.print(f"[bold red]error[/] ({exc.status}): {escape(str(exc))}", highlight=False, soft_wrap=True)
    return typer.Exit(exc.exit_code)


def _emit(review, fmt: OutFormat) -> None:
    if fmt is OutFormat.json:
        sys.stdout.write(review.model_dump_json(indent=2) + "\n")
        return
    md = review.draft.markdown if review.draft and review.draft.markdown else ""
    if not md:
        from reviewer.drafting.render import render_markdown

        md = render_markdown(review)
    if fmt is OutFormat.text and sys.stdout.isatty():
        Console().print(Markdown(md))
    else:
        sys.stdout.write(md + "\n")


def _progress(quiet: bool):
    if quiet or not sys.stderr.isatty():
        return None
    return lambda msg: err.print(f"[dim]· {msg}[/]")


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


