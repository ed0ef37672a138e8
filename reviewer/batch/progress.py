"""Progress of a batch on stderr: done/total, throughput of this session and the time left."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from reviewer.batch.store import BatchRow


def _dur(s: float) -> str:
    s = int(round(s))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class BatchProgress:
    """Throughput counts only reviews finished by this driver (cached results are not work done now)."""

    def __init__(self, console: Console, label: str, *, quiet: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.console, self.label, self.quiet, self.clock = console, label, quiet, clock
        self.total = self.done = self.fresh = 0
        self.t0 = clock()
        self._bar: Progress | None = None
        self._task = None

    def start(self, cached: int, todo: int) -> None:
        self.total, self.done, self.t0 = cached + todo, cached, self.clock()
        if not self.quiet and self.console.is_terminal and sys.stderr.isatty():
            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[rate]}"), TextColumn("ETA {task.fields[eta]}"),
                                 TimeElapsedColumn(), console=self.console)
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=self.total, completed=cached, rate="", eta="?")
        elif not self.quiet:
            self.console.print(f"{self.label}: {todo} to review, {cached} already in the store", markup=False,
                               highlight=False)

    def rate_eta(self) -> tuple[float | None, float | None]:
        """Reviews per hour so far, and seconds left at that rate (``None`` before the first review)."""
        elapsed = self.clock() - self.t0
        if not self.fresh or elapsed <= 0:
            return None, None
        per_s = self.fresh / elapsed
        return per_s * 3600, (self.total - self.done) / per_s

    def row(self, row: BatchRow, cached: bool) -> None:
        if cached:
            return
        if row.status == "invalid_submission":  # recorded, never reviewed: no work done, no rate
            if not self.quiet:
                reason = next(iter((row.error or "").strip().splitlines()), "")
                self.console.print(f"not a submission: {row.submission}: {reason}", markup=False, highlight=False,
                                   soft_wrap=True)
            return
        self.done += 1
        self.fresh += 1
        rate, eta = self.rate_eta()
        rate_s = f"{rate:.0f} reviews/h" if rate is not None else ""
        eta_s = _dur(eta) if eta is not None else "?"
        what = row.overall if row.status == "reviewed" else row.status
        where = ", ".join(x for x in (f"{row.seconds:.1f}s" if row.seconds is not None else "", row.node or "") if x)
        line = f"[{self.done}/{self.total}] {row.submission}: {what}" + (f" ({where})" if where else "")
        if self._bar is not None:
            self._bar.update(self._task, advance=1, rate=rate_s, eta=eta_s)
            self._bar.console.print(f"[dim]{escape(line)}[/]", highlight=False, soft_wrap=True)
        elif not self.quiet:
            self.console.print(f"{line} · {rate_s} · ETA {eta_s}", markup=False, highlight=False, soft_wrap=True)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
