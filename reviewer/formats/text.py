"""The plain-text report (``--format text``): what a kernel author acts on first, then the details.

Layout: the verdict; per failed or unverified criterion one line of cause, where in the source, the
smallest failing case and the command that reruns it (said once, in full, wrapped rather than cut); the
criteria, one row each (a row whose cause is above only counts); the concerns (checks that found something
without deciding a verdict), each said once with a count; then, with ``verbose``, every criterion's items,
every claim, the evidence table and every rerun command. Repeated items (same defect, same place) are
grouped. A value mismatch is placed where the kernels compute what they store (tools/engine/value_slice.py).

Plain text on every stream: no Markdown escaping. Text that came from a submission is hostile, so
control characters (terminal escapes, bidirectional overrides) are replaced and each value stays one
line (``plain``)."""

from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass, field

from reviewer.core.models import CriterionResult, Evidence, Finding, Review
from reviewer.formats.fixes import dropped_lines, text_lines

# C0/C1 controls (ANSI escapes start with ESC) and the bidirectional overrides that reorder text
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_MARK = {"pass": "pass", "fail": "FAIL", "unverified": "unverified", "not_applicable": "n/a"}
_STATUS = {
    "awaiting_signoff": "draft queued for human sign-off (reviewer mode)",
    "approved": "approved at sign-off",
    "rejected": "rejected at sign-off",
    "completed": "completed without sign-off (author mode: not queued)",
    "failed": "review failed",
}
_INDENT = " " * 13
_WIDTH = 120  # a cause longer than this continues on indented lines
_PLACES = 4  # places named in a cause's line (-v and --format json have all)
# defects about the output's values (not its shape): their places are where the values are computed
_VALUE_DEFECTS = {"mismatch", "nonfinite_mismatch", "zero_output", "constant_output", "precision_loss"}


def plain(text: object, limit: int | None = None) -> str:
    """One line of inert text: controls become spaces, whitespace runs one space, cut at ``limit``."""
    s = " ".join(_CONTROL.sub(" ", str(text)).split())
    return s if limit is None or len(s) <= limit else s[: limit - 1] + "…"


@dataclass
class Group:
    """Evidence items that report the same defect at the same place (one line, with a count)."""

    items: list[Evidence] = field(default_factory=list)
    """In the review's order."""

    @property
    def first(self) -> Evidence:
        """The item of the smallest case (the quickest to debug), the earliest among equals."""
        return min(self.items, key=_size)

    @property
    def ids(self) -> str:
        more = f", … ({len(self.items) - 3} more)" if len(self.items) > 4 else ""
        return ", ".join(e.id for e in self.items[: 3 if more else 4]) + more


def where(e: Evidence, findings: list[Finding]) -> list[str]:
    """The item's places as ``file:line`` or ``file:first-last``: its own spans, else those of the findings
    it confirms."""
    spans = list(e.spans) or [s for f in findings if e.id in f.confirmed_by for s in f.spans]
    return list(dict.fromkeys(s.place for s in spans))


def places_label(e: Evidence) -> str:
    """What an item's places are: a value mismatch's own spans are where the stored values are computed."""
    return "values computed at" if e.defect in _VALUE_DEFECTS and e.spans else "at"


def _places(e: Evidence, findings: list[Finding]) -> str:
    """The places fact of a cause (``places_label``), the first ``_PLACES`` of them."""
    places = where(e, findings)
    if not places:
        return ""
    shown = ", ".join(places[:_PLACES]) + (f" and {len(places) - _PLACES} more" if len(places) > _PLACES else "")
    return f"{places_label(e)} {shown}"


def wrapped(head: str, text: str, tail: str = "", indent: str = _INDENT) -> list[str]:
    """``head`` then ``text`` + ``tail`` in full, continued on lines indented by ``indent``: never cut."""
    return textwrap.wrap(head + text + tail, width=_WIDTH, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False) or [head]


def _size(e: Evidence) -> float:
    """Elements the case fed the kernel (the smallest failing case is the quickest to debug)."""
    tensors = e.inputs.get("tensors") if isinstance(e.inputs, dict) else None
    if not tensors:
        return math.inf
    return sum(math.prod(t.get("shape") or [1]) for t in tensors if isinstance(t, dict))


def smallest_case(e: Evidence) -> str:
    case = e.inputs.get("case") if isinstance(e.inputs, dict) else None
    if not isinstance(case, dict):
        return ""
    label = case.get("label") or case.get("id") or ""
    shapes = ", ".join(f"{t.get('dtype', '?')}{list(t.get('shape') or [])}" for t in e.inputs.get("tensors") or []
                       if isinstance(t, dict) and t.get("shape") is not None)
    return plain(f"{label} ({shapes})" if shapes else label)


def group(items: list[Evidence], findings: list[Finding]) -> list[Group]:
    """Items with the same tool, defect and source places in one group."""
    groups: dict[tuple, Group] = {}
    for e in items:
        key = (e.tool, e.defect or e.summary, tuple(where(e, findings)))
        groups.setdefault(key, Group()).items.append(e)
    return list(groups.values())


def deciding(c: CriterionResult, by_id: dict[str, Evidence]) -> list[Evidence]:
    items = [by_id[i] for i in c.evidence if i in by_id]
    want = "fail" if c.verdict == "fail" else "unverified"
    return [e for e in items if e.outcome == want]


def _cause_lines(c: CriterionResult, review: Review, by_id: dict[str, Evidence], said: set[str]) -> list[str]:
    """The criterion's causes; an item already said for an earlier criterion (one check can decide two) is
    named, not repeated. ``said`` collects the ids said."""
    opt = "" if c.required else " (optional)"
    head = f"{_MARK[c.verdict]:<10}   {plain(c.title)}{opt}"
    if c.blocked_by:  # one reason: its own checks' reasons are behind -v
        return [f"{head}: {blocked_reason(c)}"]
    groups = group(deciding(c, by_id), review.findings)
    if not groups:
        return wrapped(f"{head}: ", plain(c.summary))
    fresh = [g for g in groups if not {e.id for e in g.items} <= said]
    seen = [g.first.id for g in groups if g not in fresh]
    lines = [f"{head}: also {', '.join(seen)} above"] if seen and not fresh else []
    for n, g in enumerate(fresh):
        e = g.first
        count = f" [x{len(g.items)}: {g.ids}]" if len(g.items) > 1 else f" [{e.id}]"
        lines += wrapped(head + ": " if n == 0 else _INDENT + "and: ", plain(e.summary), count)
        places = _places(e, review.findings)
        case = smallest_case(e)
        facts = ([places] if places else []) + ([f"smallest case: {case}"] if case else [])
        if facts:
            lines += wrapped(_INDENT, " · ".join(facts))
        if e.rerun and e.defect != "not_assessed":
            lines.append(_INDENT + "rerun: " + rerun_command(e))
        said.update(x.id for x in g.items)
    if seen and fresh:
        lines.append(_INDENT + f"and {', '.join(seen)} above")
    return lines


def concerns(review: Review, *, verbose: bool = False) -> list[str]:
    """Findings grouped by kind and place, each said once; without ``verbose`` the ones no tool confirmed
    are one line per kind (where they are), their messages behind -v."""
    groups: dict[tuple, list[Finding]] = {}
    unconfirmed: dict[str, list[str]] = {}
    for f in review.findings:
        if not verbose and not f.confirmed_by:
            unconfirmed.setdefault(f.category, []).extend(f"{s.file}:{s.start_line}" for s in f.spans)
            continue
        key = (f.category, tuple(dict.fromkeys(f"{s.file}:{s.start_line}" for s in f.spans)))
        groups.setdefault(key, []).append(f)
    lines = []
    for (category, places), fs in groups.items():
        f = fs[0]
        confirmed = sorted({i for x in fs for i in x.confirmed_by})
        by = f"confirmed by {', '.join(confirmed)}" if confirmed else "not confirmed by a tool"
        count = f" x{len(fs)}" if len(fs) > 1 else ""
        at = f" at {', '.join(places)}" if places else ""
        lines.append(f"  concern{count}: {plain(category)}{at} ({f.severity}, {by})")
        lines += wrapped("    ", plain(f.message), indent="    ")
    for category, places in unconfirmed.items():
        at = f" at {', '.join(dict.fromkeys(places))}" if places else ""
        lines.append(f"  unconfirmed: {plain(category)}{at} (no tool confirmed it; -v for the message)")
    return lines


def _task(review: Review) -> list[str]:
    """The task audit's findings (reviewer/core/task.py): about the task, never the kernel."""
    task = getattr(review, "task", None)
    if task is None:
        return []
    head = "degenerate: a wrong kernel can pass its check" if task.degenerate else "sound: its check rejected every impostor"
    lines = ["", f"Task: {head} (check: {plain(task.task_check or 'none')}); these findings never fail the kernel"]
    for f in task.findings:
        cover = f" (covered by: {plain(f.covered_by)})" if f.covered_by else ""
        lines.append(f"  {'degenerate' if f.degenerate else 'note'} {f.kind}: {plain(f.detail, 240)}{cover}")
    return lines


def row_summary(c: CriterionResult) -> str:
    """A criterion's summary in the criteria table: a failed or unverified one's cause is said in the first
    block, so its row only counts ("3 of 4 checks failed (above)"); one not assessed names what blocked it."""
    if c.blocked_by:
        return blocked_reason(c)
    if c.verdict in ("fail", "unverified") and c.evidence:
        return c.summary.split(": ", 1)[0] + " (above)"
    return c.summary


def blocked_reason(c: CriterionResult) -> str:
    return f"not assessed: {', '.join(c.blocked_by)} did not pass"


def _criteria(review: Review) -> list[str]:
    """One row per criterion (``row_summary``)."""
    width = max((len(plain(c.title)) for c in review.criteria), default=0) + 11
    lines = []
    for c in review.criteria:
        title = plain(c.title) + ("" if c.required else " (optional)")
        lines.append(f"  {_MARK[c.verdict]:<10}  {title:<{width}}  {plain(row_summary(c), 110)}")
    return lines


def _details(review: Review, by_id: dict[str, Evidence]) -> list[str]:
    """Every criterion's items, grouped (``-v``: the first block has said the deciding ones in full)."""
    lines: list[str] = []
    for c in review.criteria:
        groups = group([by_id[i] for i in c.evidence if i in by_id], review.findings)
        if not groups:
            continue
        lines += ["", f"{plain(c.title)}: {_MARK[c.verdict]}"]
        for g in groups:
            count = f" (x{len(g.items)}: {g.ids})" if len(g.items) > 1 else ""
            lines.append(f"  [{g.first.id}] {g.first.outcome}: {plain(g.first.summary)}{count}")
    return lines


def _evidence(review: Review) -> list[str]:
    lines = ["", "Evidence (rerun any item):"]
    for e in review.evidence:
        lines.append(f"  {e.id:<22} {e.outcome:<10} {plain(e.summary, 200)}")
        if e.rerun:
            lines.append(f"  {'':<22} {rerun_command(e)}")
    return lines


def render_text(review: Review, *, verbose: bool = False) -> str:
    sub = review.submission
    env = review.environment
    by_id = review.evidence_by_id()
    lines = [f"UNSAFE: {plain(env.get('sandbox_isolation', 'no sandbox'))}", ""] if env.get("unsafe_no_sandbox") else []
    lines.append(f"{plain(sub.name)}: {review.overall.upper().replace('_', ' ')} — {plain(review.overall_reason)}")
    lines.append(f"  {_STATUS[review.status]} · run {review.run_id} · {sub.format} · {sub.framework} · "
                 f"{plain(env.get('device', '?'))} · seed {review.seed}")
    if env.get("selection"):
        lines.append(f"  {plain(env['selection'])}")
    open_ = [c for c in review.criteria if c.verdict in ("fail", "unverified")]
    if open_:
        lines.append("")
    idle = [c for c in open_ if c.verdict == "unverified" and not c.evidence]  # no check of theirs ran
    said: set[str] = set()
    for c in sorted((c for c in open_ if c not in idle), key=lambda c: (c.verdict != "fail", not c.required)):
        lines += _cause_lines(c, review, by_id, said)
        lines += text_lines(review.fixes, c.id, _INDENT)
    if idle:
        lines.append(f"{'unverified':<10}   no check ran for: {', '.join(plain(c.title) for c in idle)}")
    if dropped_lines(review.fixes):
        lines += ["", "Fixes not offered:"] + [f"  {plain(x)}" for x in dropped_lines(review.fixes)]
    lines += ["", "Criteria:"] + _criteria(review)
    lines += _task(review)
    found = concerns(review, verbose=verbose)
    if found:
        lines += ["", "Concerns (do not decide a verdict; act on them if they apply to your use):"] + found
    if verbose:
        lines += _details(review, by_id)
        if review.draft and review.draft.notes:
            lines += ["", "Notes:"] + [f"  {plain(n)}" for n in review.draft.notes]
        lines += _evidence(review)
    if review.signoff:
        s = review.signoff
        note = f" — {plain(s.note)}" if s.note else ""
        lines += ["", f"Signed off: {s.decision} by {plain(s.by)} at {s.at}{note}"]
    if not verbose:
        lines += ["", f"Every check and its rerun command: kreview show {review.run_id} -v"]
    return "\n".join(lines) + "\n"


def _detail(value: object) -> str:
    """A result field in a line: a check's own reason, else its scalar fields (nested ones are in --format json)."""
    if not isinstance(value, dict):
        return str(value)
    if isinstance(value.get("reason"), str) and value["reason"]:
        return value["reason"]
    return " ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in value.items()
                    if isinstance(v, (bool, int, float, str)) and v != "")


def rerun_command(e: Evidence) -> str:
    """The item's rerun command, naming the item (``--evidence``) so the rerun prints it under its id."""
    cmd = plain(e.rerun)
    if cmd.startswith(("kreview rerun ", "kreview probe ")) and " --evidence " not in cmd:
        cmd += f" --evidence {e.id}"
    return cmd


def rerun_report(items: list[Evidence], tool: str) -> str:
    """``kreview rerun`` in text: each item, and for one that fails or could not conclude, where and what its
    result holds (the mismatch: counts, worst element, error against float64), then the outcome."""
    lines = []
    for e in items:
        lines.append(f"{e.id} [{e.outcome}] {plain(e.summary)}")
        if e.outcome not in ("fail", "unverified"):
            continue
        places = _places(e, [])
        if places:
            lines.append(f"  {places}")
        if e.reason:
            lines.append(f"  reason: {plain(e.reason)}")
        for key, value in e.result.items():
            if key != "duration_s" and value not in (None, "", [], {}):
                lines.append(f"  {key}: {plain(_detail(value), 400)}")
    failing = [e.id for e in items if e.tool == tool and e.outcome == "fail"]
    lines.append(f"{tool}: {'FAIL (' + ', '.join(failing) + '); exit 1' if failing else 'no failing item; exit 0'}")
    return "\n".join(lines) + "\n"
