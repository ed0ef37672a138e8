"""What a person sees while a review runs (stderr only; stdout stays the report).

On a terminal: one live line with the current tool, its count and its elapsed time, plus a permanent
line per finished tool. Off a terminal (CI logs): one plain line when each tool starts and one when it
ends, with its outcome and seconds, flushed at once, so a 90-second review is never silent.
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Callable, Iterator, TextIO

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from reviewer.progress import ToolFinished, ToolStarted


class PlainReporter:
    """One line per event, prefixed ``kreview:``; nothing is rewritten, nothing wraps mid-line."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.t0 = time.monotonic()

    def __call__(self, event: object) -> None:
        if isinstance(event, ToolStarted):
            line = f"[{event.index}/{event.total}] {event.tool} started"
        else:
            line = str(event)
        self.stream.write(f"kreview: {line}\n")
        self.stream.flush()


class LiveReporter:
    """A Rich live line (spinner, [i/n] tool, elapsed) and a permanent line per finished tool."""

    _MARK = {"fail": "[red]✗[/]", "unverified": "[yellow]?[/]", "pass": "[green]✓[/]"}

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                                 console=console, transient=True)
        self.task = self.progress.add_task("starting", total=None)

    def __enter__(self) -> "LiveReporter":
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def __call__(self, event: object) -> None:
        if isinstance(event, ToolStarted):
            self.progress.reset(self.task, description=f"[bold]\\[{event.index}/{event.total}] {escape(event.tool)}[/]"
                                                        f" [dim]{escape(event.description)}[/]")
        elif isinstance(event, ToolFinished):
            first = event.outcome.split(" ", 2)[1].rstrip(",") if event.outcome[:1].isdigit() else ""
            mark = self._MARK.get(first, "·")
            self.console.print(f"{mark} \\[{event.index}/{event.total}] {escape(event.tool)}: {escape(event.outcome)} "
                               f"[dim]({event.seconds:.1f}s)[/]", highlight=False, soft_wrap=True)
        else:
            self.progress.reset(self.task, description=f"[dim]{escape(str(event))}[/]")


@contextlib.contextmanager
def reporter(quiet: bool, console: Console | None = None,
             stream: TextIO | None = None) -> Iterator[Callable[[object], None] | None]:
    """The progress callback for a review (None when quiet)."""
    if quiet:
        yield None
        return
    stream = stream or sys.stderr
    if stream.isatty():
        with LiveReporter(console or Console(file=stream)) as live:
            yield live
    else:
        yield PlainReporter(stream)
