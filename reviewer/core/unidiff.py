"""The lines of a unified diff's hunks, numbered on both sides: what the pull request's changed ranges
(reviewer/pr/gitdiff.py) and the workbench's diff tables (reviewer/web/views.py) both read.

Only a hunk's counted lines are read (``@@ -a,b +c,d @@``: b old-side, d new-side lines): file headers
(``--- a/x``) and anything between hunks are skipped, and inside a hunk a removed line reading ``-- x``
stays a removed line. A ``@@`` line that does not parse still opens a hunk, read until the next header
with the numbers where they were. ``\\ No newline at end of file`` markers are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_UNCOUNTED = 1 << 30


@dataclass(frozen=True)
class DiffLine:
    kind: Literal["hunk", "add", "del", "ctx"]
    old: int | None
    new: int | None
    text: str
    """The line without its +/-/space mark (a hunk header whole)."""


def diff_lines(diff: str) -> Iterator[DiffLine]:
    old = new = left_old = left_new = 0
    for line in diff.splitlines():
        if line.startswith("@@"):
            m = HUNK.match(line)
            if m:
                old, new = int(m.group(1)) - 1, int(m.group(3)) - 1
                left_old = int(m.group(2)) if m.group(2) is not None else 1
                left_new = int(m.group(4)) if m.group(4) is not None else 1
            else:
                left_old = left_new = _UNCOUNTED
            yield DiffLine("hunk", None, None, line)
        elif not (left_old > 0 or left_new > 0) or line.startswith("\\"):
            continue
        elif line.startswith("+"):
            new, left_new = new + 1, left_new - 1
            yield DiffLine("add", None, new, line[1:])
        elif line.startswith("-"):
            old, left_old = old + 1, left_old - 1
            yield DiffLine("del", old, None, line[1:])
        else:
            old, new, left_old, left_new = old + 1, new + 1, left_old - 1, left_new - 1
            yield DiffLine("ctx", old, new, line[1:])
