"""Verified fixes in the human formats: the unified diff under the failed criterion it fixes (text, Markdown)
and, for the pull-request bot, a GitHub ``suggestion`` block. Patch text quotes the submission, so it is
hostile: controls removed, and a Markdown fence longer than any backtick run in it."""

from __future__ import annotations

import re

from reviewer.core.fixes import Fix, FixReport, LineChange

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def inert(line: str) -> str:
    return _CONTROL.sub(" ", line.replace("\t", "    "))


def fence(body: str) -> str:
    runs = [len(m) for m in re.findall(r"`+", body)]
    return "`" * max(3, max(runs, default=0) + 1)


def _verified(f: Fix) -> str:
    fixed = [r for r in f.reruns if r.before == "fail" and r.after == "pass"]
    kept = [r for r in f.reruns if r.before == "pass" and r.after == "pass"]
    return (f"verified in the sandbox in {f.duration_s:.0f}s: {len(fixed)} failing check(s) now pass, "
            f"{len(kept)} passing check(s) still pass (reran {', '.join(f.tools)})")


def text_lines(report: FixReport | None, criterion: str, indent: str) -> list[str]:
    if report is None:
        return []
    out: list[str] = []
    for f in report.for_criterion(criterion):
        out.append(f"{indent}verified fix {f.id} ({f.kind}) [origin: {inert(f.origin)}]: {inert(f.description)}; "
                   f"{_verified(f)}")
        out += [f"{indent}  {inert(line)}" for line in f.diff.splitlines()]
    return out


def markdown_lines(report: FixReport | None, criterion: str) -> list[str]:
    if report is None:
        return []
    out: list[str] = []
    for f in report.for_criterion(criterion):
        marks = fence(f.diff)
        out += [f"**Verified fix `{f.id}`** ({f.kind}, origin {inert(f.origin)}): {inert(f.description)}; "
                f"{_verified(f)}.", "",
                f"{marks}diff", *[inert(x) for x in f.diff.splitlines()], marks, ""]
    return out


def dropped_lines(report: FixReport | None) -> list[str]:
    if report is None:
        return []
    lines = [f"{d.kind} for {d.criterion}: dropped, {inert(d.why)} [origin: {inert(d.origin)}]" for d in report.dropped]
    if report.note and not report.fixes:
        lines.append(inert(report.note))
    lines += [f"model fixer: {inert(n)}" for n in report.notes]
    return lines


def suggestion(change: LineChange) -> str:
    """A GitHub suggestion replacing the commented lines (``change.start_line``..``end_line``)."""
    body = "\n".join(change.new)
    marks = fence(body)
    return f"{marks}suggestion\n{body}\n{marks}"
