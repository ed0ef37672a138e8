"""Markdown for a diff review: the PR summary comment, the review body, the local ``kreview diff`` text."""

from __future__ import annotations

import hmac
import json
from collections.abc import Iterable

from reviewer.drafting.escape import md_code, md_text
from reviewer.drafting.render import _MARK as VERDICT_MARK
from reviewer.core.models import Review
from reviewer.pr.comments import signature
from reviewer.pr.models import DiffReview, PlannedComment, TargetReport

SUMMARY_MARK = "<!-- kreview:summary -->"
_STATE_OPEN = "<!-- kreview:state "
_TREND = {"regression": "⬇️ regression", "improvement": "⬆️ improvement", "unchanged": "=", "new": "new",
          "removed": "removed"}
# GitHub refuses comment bodies over 65,536 characters.
MAX_BODY = 60_000


def _v(verdict: str | None) -> str:
    return VERDICT_MARK.get(verdict, "—") if verdict else "—"


def state_marker(state: dict) -> str:
    text = json.dumps(state, sort_keys=True)
    sig = signature("state:" + text)
    return f"{_STATE_OPEN}{text}" + (f" sig={sig}" if sig else "") + " -->"


def read_state(body: str) -> dict | None:
    """The bot's own state: the *last* marker of its own comment (it writes the marker last; any
    text quoted above it is escaped and cannot hold one, reviewer/drafting/escape.py). With
    ``KREVIEW_MARKER_KEY`` set, only a marker signed under it counts (reviewer/pr/comments.py)."""
    start = body.rfind(_STATE_OPEN)
    if start < 0:
        return None
    end = body.find(" -->", start)
    text = body[start + len(_STATE_OPEN):end]
    text, _, sig = text.partition(" sig=")
    want = signature("state:" + text)
    if want is not None and not hmac.compare_digest(sig, want):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _target(r: TargetReport, review: Review | None) -> list[str]:
    t = r.target
    lines = [f"### {md_code(t.dir or '.')}", ""]
    lines.append("Touched because: " + "; ".join(md_text(x) for x in t.reasons[:6]) + (" …" if len(t.reasons) > 6 else ""))
    lines.append("")
    if r.new_error:
        lines += [f"**The new version could not be reviewed** — {md_text(r.new_error)}", ""]
    if not t.in_head:
        lines += ["The change removes this submission.", ""]
    head = f"**{r.new_overall}**" if r.new_overall else "—"
    base = r.old_overall or ("not reviewed" if t.in_base else "did not exist")
    if r.old_error:
        base = f"could not be reviewed ({r.old_error.split(':')[0]})"
    lines += [f"Overall: {head} (base: {base}) · run `{r.new_run or '—'}`", ""]
    if review is not None and review.overall_reason:
        lines += [md_text(review.overall_reason), ""]
    if r.criteria:
        lines += ["| criterion | base | head | change |", "|---|---|---|---|"]
        lines += [f"| {c.title} | {_v(c.old)} | {_v(c.new)} | {_TREND[c.trend]} |" for c in r.criteria]
        lines.append("")
    if r.metrics:
        lines += ["| measured | base | head | ratio |", "|---|---|---|---|"]
        for m in r.metrics:
            ratio = f"{m.ratio:.2f}×" if m.ratio is not None else "—"
            lines.append(f"| {m.tool} {m.check} `{m.key}` | {m.old:g} | {m.new:g} | {ratio} |")
        lines.append("")
    if review is not None:
        lines += task_block(review)
        failing = [e for e in review.evidence if e.outcome == "fail"][:8]
        if failing:
            lines += ["Failing evidence:", ""] + [f"- {md_code(e.id)}: {md_text(e.summary)}" for e in failing] + [""]
    return lines


# findings shown per task in the comment; the rest are in the full review and its JSON
_TASK_FINDINGS = 8


def task_block(review: Review) -> list[str]:
    """The task audit (reviewer/core/task.py) in a target's summary: degenerate or sound, each finding
    one line, every text of the audit escaped (a finding's detail quotes what the reference printed)."""
    task = review.task
    if task is None:
        return []
    head = ("**degenerate**: a wrong kernel can pass its check" if task.degenerate
            else "sound: its check rejected every impostor")
    lines = [f"Task: {head} (check: {md_text(task.task_check or 'none')}). About the task; never fails the kernel.", ""]
    for f in task.findings[:_TASK_FINDINGS]:
        mark = "**degenerate**" if f.degenerate else "note"
        lines.append(f"- {mark} {md_code(f.kind)}: {md_text(f.detail[:300])}")
    if len(task.findings) > _TASK_FINDINGS:
        lines.append(f"- … {len(task.findings) - _TASK_FINDINGS} more in the full review")
    return lines + ([""] if task.findings else [])


def render_summary(dr: DiffReview, reviews: dict[str, Review], *, status: str, inline: Iterable[PlannedComment] = (),
                   overflow: Iterable[PlannedComment] = (), already: int = 0, state: dict | None = None,
                   details: bool = True) -> str:
    """The one summary comment (also the body of ``kreview diff``)."""
    inline, overflow = list(inline), list(overflow)
    n = len(dr.targets)
    lines = [SUMMARY_MARK, f"## kreview · {n} kernel submission{'s' if n != 1 else ''} touched by this change", "",
             status, "", f"`{dr.merge_base[:12]}` → `{dr.head[:12]}` · {len(dr.files)} file(s) changed", ""]
    if not dr.targets:
        lines += ["No kernel submission (KernelBench, GPU MODE or kreview.toml directory) is touched.", ""]
    for r in dr.targets:
        lines += _target(r, reviews.get(r.new_run or ""))
    if inline or already:
        lines += [f"Inline comments on changed lines: {len(inline)} in this review"
                  + (f", {already} unchanged from an earlier push (not repeated)" if already else "") + ".", ""]
    if overflow:
        lines += ["Not posted inline (over the comment limit):", ""]
        lines += [f"- `{c.path}:{c.line}`: {_first_line(c.body)}" for c in overflow] + [""]
    if dr.off_diff:
        lines += ["Outside the changed lines (summary only):", ""]
        lines += [f"- {md_text(o.text)}" + (f" {md_code(o.where)}" if o.where else "") for o in dr.off_diff] + [""]
    if details:
        for r in dr.targets:
            review = reviews.get(r.new_run or "")
            if review is not None and review.draft is not None:
                lines += [f"<details><summary>Full review of <code>{md_text(r.target.dir or '.')}</code></summary>", "",
                          untree(review.draft.markdown, dr), "", "</details>", ""]
    if state is not None:
        lines.append(state_marker(state))
    body = "\n".join(lines)
    if len(body) > MAX_BODY:
        tail = "\n\n*(truncated: the full review is in the run's artifact)*\n" + (state_marker(state) if state else "")
        body = body[: MAX_BODY - len(tail)] + tail
    return body


def untree(text: str, dr: DiffReview) -> str:
    """Paths into the temporary copies of the revisions, rewritten relative to a checkout."""
    for tree in dr.trees.values():
        text = text.replace(tree.rstrip("/") + "/", "")
    return text


def _first_line(body: str) -> str:
    return body.splitlines()[0] if body else ""


def render_comments(comments: Iterable[PlannedComment]) -> str:
    """Inline comments as text, for ``kreview diff`` on a terminal."""
    out = []
    for c in comments:
        where = f"{c.path}:{c.start_line}-{c.line}" if c.start_line else f"{c.path}:{c.line}"
        body = "\n".join(x for x in c.body.splitlines() if not x.startswith("<!--"))
        out += [f"#### {where}", "", body.strip(), ""]
    return "\n".join(out)
