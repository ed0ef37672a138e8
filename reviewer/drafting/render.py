"""Markdown rendering of a review (terminal, PR comment, ``draft.md``)."""

from __future__ import annotations

from reviewer.drafting.escape import md_code, md_text
from reviewer.drafting.task_section import task_lines
from reviewer.core.models import Claim, Finding, Review
from reviewer.formats.fixes import dropped_lines, markdown_lines
from reviewer.formats.text import (
    blocked_reason, deciding, group, places_label, rerun_command, row_summary, smallest_case, where,
)

_MARK = {"pass": "✅ pass", "fail": "❌ fail", "unverified": "❔ unverified", "not_applicable": "➖ n/a"}
_STATUS = {
    "awaiting_signoff": "draft, awaiting human sign-off",
    "approved": "approved",
    "rejected": "rejected at sign-off",
    "completed": "completed without sign-off",
    "failed": "review failed",
}


def _claim(c: Claim) -> str:
    cites = [f"\\[{md_text(i)}\\]" for i in c.evidence] + [md_code(s.place) for s in c.spans]
    return f"- {md_text(c.text)} {' '.join(cites)}".rstrip()


def _cell(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return md_text(text)


def _act_on(review: Review, said: set[str]) -> list[str]:
    """Per failed or unverified criterion: the cause in full (same defect at the same place once, with a
    count), where, the smallest failing case and its rerun command; a criterion not assessed because a
    required one failed, that one reason. ``said`` collects the ids said."""
    by_id = review.evidence_by_id()
    open_ = sorted((c for c in review.criteria if c.verdict in ("fail", "unverified")),
                   key=lambda c: (c.verdict != "fail", not c.required))
    lines: list[str] = []
    for c in open_:
        opt = "" if c.required else " (optional)"
        head = f"- {_MARK[c.verdict]} **{md_text(c.title)}**{opt}: "
        if c.blocked_by:
            lines.append(head + md_text(blocked_reason(c)))
            said.update(c.evidence)
            continue
        groups = group(deciding(c, by_id), review.findings)
        if not groups:
            lines.append(head + _cell(c.summary, 2000))
        for g in groups:
            e = g.first
            count = f" ×{len(g.items)}" if len(g.items) > 1 else ""
            lines.append(f"{head}{_cell(e.summary, 2000)} \\[{md_text(g.ids)}\\]{count}")
            said.update(x.id for x in g.items)
            places = where(e, review.findings)
            case = smallest_case(e)
            if places or case:
                lines.append("  - " + " · ".join([f"{places_label(e)} {', '.join(md_code(p) for p in places)}"]
                                               * bool(places)
                                               + [f"smallest case: {md_text(case)}"] * bool(case)))
            if e.rerun and e.defect != "not_assessed":
                lines.append(f"  - rerun: {md_code(rerun_command(e))}")
    return lines + [""] if lines else []


def _findings(findings: list[Finding]) -> list[str]:
    """Findings with the same category at the same lines said once, with a count."""
    groups: dict[tuple, list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.category, tuple(f"{s.file}:{s.start_line}" for s in f.spans)), []).append(f)
    lines = []
    for (category, places), fs in groups.items():
        f = fs[0]
        confirmed = sorted({i for x in fs for i in x.confirmed_by})
        conf = f" (confirmed by {', '.join(confirmed)})" if confirmed else " (not confirmed by a tool)"
        count = f" ×{len(fs)}" if len(fs) > 1 else ""
        at = " ".join(md_code(p) for p in dict.fromkeys(places))
        lines.append(f"- **{md_text(category)}**{count} ({f.severity}, {f.origin}){md_text(conf)}: "
                     f"{md_text(f.message)} {at}".rstrip())
    return lines


def render_markdown(review: Review, *, evidence_table: bool = True) -> str:
    sub = review.submission
    env = review.environment
    lines = [f"**UNSAFE: {env.get('sandbox_isolation', 'no sandbox')}**", ""] if env.get("unsafe_no_sandbox") else []
    lines += [
        f"# Kernel review: {md_text(sub.name)} — {review.overall.upper().replace('_', ' ')}",
        "",
        f"*{_STATUS[review.status]}* · run `{review.run_id}` · {sub.format} · {sub.framework} · "
        f"{env.get('device', '?')} ({env.get('run_setup', 'native')}) · seed {review.seed}",
        "",
        f"**Overall: {review.overall}** — {md_text(review.overall_reason)}",
        "",
    ]
    if env.get("selection"):
        lines += [f"*{md_text(env['selection'])}*", ""]
    said: set[str] = set()
    lines += _act_on(review, said)
    draft = review.draft
    # a finding is said once, under Concerns; a claim resting only on causes said above is not said again
    headline = [c for c in (draft.headline if draft else []) if not c.text.startswith("Finding: ")
                and not (c.evidence and set(c.evidence) <= said)]
    if headline:
        lines += [_claim(c) for c in headline] + [""]
    lines += ["| criterion | verdict | summary | evidence |", "|---|---|---|---|"]
    for c in review.criteria:
        ev = ", ".join(c.evidence[:6]) + (" …" if len(c.evidence) > 6 else "")
        req = "" if c.required else " (optional)"
        lines.append(f"| {md_text(c.title)}{req} | {_MARK[c.verdict]} | {_cell(row_summary(c))} | {md_text(ev)} |")
    lines.append("")
    lines += task_lines(review.task)
    if draft:
        for s in draft.sections:
            crit = next((c for c in review.criteria if c.id == s.criterion), None)
            if crit is None or not s.claims:
                continue
            lines += [f"## {md_text(crit.title)} — {_MARK[s.verdict]}", ""]
            lines += [_claim(c) for c in s.claims] + [""]
            lines += markdown_lines(review.fixes, crit.id)
        if dropped_lines(review.fixes):
            lines += ["## Fixes not offered", ""] + [f"- {md_text(x)}" for x in dropped_lines(review.fixes)] + [""]
        if review.findings:
            lines += ["## Concerns (do not decide a verdict)", ""] + _findings(review.findings) + [""]
        if draft.notes:
            lines += ["## Notes", ""] + [f"- {md_text(n)}" for n in draft.notes] + [""]
        if draft.removed:
            lines += [f"*The grounding check removed {len(draft.removed)} unsupported claim(s); see review.json.*", ""]
    if evidence_table and review.evidence:
        lines += ["## Evidence", "", "| id | outcome | summary |", "|---|---|---|"]
        for e in review.evidence:
            lines.append(f"| {md_text(e.id)} | {e.outcome} | {_cell(e.summary, 200)} |")
        lines += ["", "Rerun any item:", ""]
        for e in review.evidence:
            if e.rerun:
                lines.append(f"- {md_code(e.id)}: {md_code(rerun_command(e))}")
        lines.append("")
    if review.signoff:
        s = review.signoff
        lines += [f"Signed off: **{s.decision}** by {md_text(s.by)} at {s.at}" + (f" — {md_text(s.note)}" if s.note else ""),
                  ""]
    return "\n".join(lines)
