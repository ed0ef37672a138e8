"""What a review reports while it runs: plain messages, and the start and end of each tool.

The progress callback a review takes is ``Callable[[object], None]``. Stage messages arrive as ``str``;
tools arrive as :class:`ToolStarted` and :class:`ToolFinished`, whose ``str()`` is a readable line, so a
callback that only prints strings keeps working, and a front end that knows the events can show a
count and elapsed times (the CLI does: a live line on a terminal, one plain line per tool elsewhere).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class ToolStarted:
    tool: str
    index: int  # 1-based position among the tools this review runs
    total: int
    description: str = ""

    def __str__(self) -> str:
        return f"[{self.index}/{self.total}] {self.tool}: {self.description}".rstrip(": ")


@dataclass(frozen=True)
class ToolFinished:
    tool: str
    index: int
    total: int
    outcome: str  # e.g. "2 pass, 1 unverified"; "no evidence" when the tool recorded none
    seconds: float

    def __str__(self) -> str:
        return f"[{self.index}/{self.total}] {self.tool}: {self.outcome} ({self.seconds:.1f}s)"


def outcome_summary(outcomes: Iterable[str]) -> str:
    """``fail`` first, then ``unverified``, then the rest: the line a reader scans for."""
    counts = Counter(outcomes)
    if not counts:
        return "no evidence"
    order = ["fail", "unverified", "pass"]
    keys = sorted(counts, key=lambda k: (order.index(k) if k in order else len(order), k))
    return ", ".join(f"{counts[k]} {k}" for k in keys)
