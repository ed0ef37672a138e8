"""Line numbers as runs: what a pull request's changed lines and a kernel's cited lines are both read as."""

from __future__ import annotations

from collections.abc import Iterable


def runs(lines: Iterable[int]) -> list[tuple[int, int]]:
    """Line numbers, in any order and with repeats, as sorted inclusive runs: [(18, 21), (30, 30)]."""
    out: list[tuple[int, int]] = []
    for n in sorted(set(lines)):
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out
