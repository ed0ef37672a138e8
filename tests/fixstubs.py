"""A verified fix made by hand, for tests of what shows fixes (the workbench) without a sandbox rerun."""

from __future__ import annotations

from reviewer.core.fixes import CaseRerun, Fix, FixReport
from reviewer.fix.source import line_changes, lines_changed, unified

SCRIPT = "window.__kreview_pwned = 6"
HOSTILE_TAIL = f"  # </pre></td></tr></table><script>{SCRIPT}</script>"


def verified_fix(text: str, old_line: str, new_line: str, *, criterion: str, fixed: list[str],
                 kept: list[str], file: str = "submission.py") -> FixReport:
    """A report with one fix of ``criterion`` replacing the line that contains ``old_line`` with ``new_line``
    (at its indentation, ending in hostile markup); ``fixed``: evidence ids whose rerun passed, ``kept``:
    ids that passed before and after."""
    lines = text.splitlines(keepends=True)
    i = next(n for n, x in enumerate(lines) if old_line in x)
    indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    new = "".join(lines[:i] + [f"{indent}{new_line}{HOSTILE_TAIL}\n"] + lines[i + 1:])
    reruns = ([CaseRerun(tool=e.split("-")[0], check="compare with the reference", case=f"nominal-{e}", before="fail",
                         after="pass", evidence=e) for e in fixed]
              + [CaseRerun(tool=e.split("-")[0], check="a check", case=e, before="pass", after="pass", evidence=e)
                 for e in kept])
    fix = Fix(id="fix-1", kind="store_cast", criterion=criterion, file=file, description="cast the stored value",
              diff=unified(text, new, file), lines_changed=lines_changed(text, new), edits=[],
              changes=line_changes(text, new), reruns=reruns, tools=sorted({r.tool for r in reruns}), duration_s=4.2)
    return FixReport(fixes=[fix], duration_s=4.2)
