"""Findings and failed evidence → inline comments on changed lines, or notes for the summary.

Only items that cite rerunnable evidence become inline comments: failed evidence, and findings that
evidence confirms. Everything else, and anything pointing outside the lines the change wrote, goes to
the summary. Each comment carries a fingerprint (hidden in its body) that does not depend on line
numbers or evidence ids, so the same problem is recognised on the next push and not posted twice.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from reviewer.core.fixes import Fix
from reviewer.core.models import Evidence, Review, SourceSpan
from reviewer.formats.fixes import suggestion
from reviewer.drafting.escape import md_code, md_text
from reviewer.pr.models import FileChange, LineRange, OffDiffNote, PlannedComment, ReviewTarget

FP_MARK = "kreview:fp="
# Rationale: a marker the bot trusts carries an HMAC of the fingerprint under a key only the bot's
# environment holds (a repository secret; submissions run sandboxed with a scrubbed environment), so
# text a submission gets into a comment cannot suppress a later finding with a planted marker. With
# no key configured markers are unsigned, and escaping (reviewer/drafting/escape.py) is the only defence.
MARKER_KEY_ENV = "KREVIEW_MARKER_KEY"
_FP = re.compile(r"<!-- kreview:fp=([0-9a-f]{16})(?: sig=([0-9a-f]{32}))? -->")
_WS = re.compile(r"\s+")
_ICON = {"fail": "❌", "error": "❌", "warning": "⚠️", "info": "ℹ️"}
# Rationale: a failed required criterion blocks acceptance, so it outranks a confirmed finding, which
# outranks a failure of an optional criterion (performance, resources), which outranks a warning.
RANK_REQUIRED_FAIL, RANK_ERROR_FINDING, RANK_OPTIONAL_FAIL, RANK_WARNING_FINDING = 0, 1, 2, 3


def _key() -> bytes | None:
    key = os.environ.get(MARKER_KEY_ENV, "")
    return key.encode() if key else None


def signature(fp: str, key: bytes | None = None) -> str | None:
    key = key if key is not None else _key()
    return hmac.new(key, f"kreview-fp:{fp}".encode(), hashlib.sha256).hexdigest()[:32] if key else None


def fp_marker(fp: str) -> str:
    sig = signature(fp)
    return f"<!-- {FP_MARK}{fp}" + (f" sig={sig}" if sig else "") + " -->"


def fingerprints_in(body: str) -> set[str]:
    """The fingerprints of the markers in ``body`` the bot wrote: with a key, only correctly signed ones."""
    key = _key()
    out = set()
    for fp, sig in _FP.findall(body or ""):
        if key is None or (sig and hmac.compare_digest(sig, signature(fp, key) or "")):
            out.add(fp)
    return out


def fingerprint(target: str, path: str, kind: str, quote: str, criteria: list[str]) -> str:
    text = "\x1f".join([target, path, kind, _WS.sub(" ", quote).strip(), ",".join(sorted(criteria))])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class _Item:
    kind: str
    title: str
    rank: int
    criteria: list[str]
    spans: list[SourceSpan]
    cites: list[Evidence]
    text: str
    source: str


def repo_path(tree: Path, target_dir: str, file: str) -> str | None:
    """The repository path of a submission-relative file (symlinks inside the tree followed)."""
    root = tree.resolve()
    p = root.joinpath(*[x for x in target_dir.split("/") if x], *Path(file).parts)
    real = Path(os.path.realpath(p))
    if real != root and root not in real.parents:
        return None
    return real.relative_to(root).as_posix()


def _hit(span: SourceSpan, change: FileChange) -> LineRange | None:
    """The changed lines inside ``span``: the first contiguous run of them, clipped to the span."""
    for r in change.added:
        start, end = max(r.start, span.start_line), min(r.end, span.end_line)
        if start <= end:
            return LineRange(start=start, end=end)
    return None


def _items(review: Review) -> list[_Item]:
    by_id = review.evidence_by_id()
    required = {c.id: c.required for c in review.criteria}
    title = {c.id: c.title for c in review.criteria}
    items = []
    for e in review.evidence:
        if e.outcome != "fail":
            continue
        req = any(required.get(c, True) for c in e.criteria)
        crit = ", ".join(title.get(c, c) for c in e.criteria)
        items.append(_Item(kind=e.defect or e.check or "fail", title=f"{crit}: {e.defect or 'failed'}",
                           rank=RANK_REQUIRED_FAIL if req else RANK_OPTIONAL_FAIL, criteria=list(e.criteria),
                           spans=list(e.spans), cites=[e], text=e.summary, source=e.id))
    for f in review.findings:
        cites = [by_id[i] for i in f.confirmed_by if i in by_id]
        rank = RANK_ERROR_FINDING if f.severity == "error" else RANK_WARNING_FINDING
        items.append(_Item(kind=f.category, title=f"{f.category} ({f.severity}, {f.origin})", rank=rank,
                           criteria=[], spans=list(f.spans), cites=cites, text=f.message, source=f.id))
    return items


def _rerun(e: Evidence, tree: Path) -> str:
    # the review ran on a temporary copy of the revision: show the command as run from a checkout
    return e.rerun.replace(str(tree.resolve()) + os.sep, "").replace(str(tree) + os.sep, "")


def _body(item: _Item, fp: str, tree: Path, icon: str) -> str:
    # Rationale: titles, summaries and messages quote what a submission printed or raised: rendered
    # inert (no headings, HTML, images, mentions, markers, ANSI or bidi overrides)
    ids = ", ".join(md_code(e.id) for e in item.cites)
    lines = [f"**{icon} {md_text(item.title)}** · evidence {ids}", "", md_text(item.text)]
    for e in item.cites:
        if e.id != item.source:
            lines += ["", f"- {md_code(e.id)} ({md_text(e.outcome)}): {md_text(e.summary)}"]
    reruns = [md_code(_rerun(e, tree)) for e in item.cites if e.rerun]
    if reruns:
        lines += ["", "<details><summary>Rerun</summary>", "", *reruns, "", "</details>"]
    lines += ["", fp_marker(fp)]
    return "\n".join(lines)


def _icon(rank: int) -> str:
    if rank in (RANK_REQUIRED_FAIL, RANK_OPTIONAL_FAIL):
        return _ICON["fail"]
    return _ICON["error" if rank == RANK_ERROR_FINDING else "warning"]


def plan_comments(review: Review, target: ReviewTarget, files: list[FileChange],
                  tree: Path) -> tuple[list[PlannedComment], list[OffDiffNote]]:
    """Inline comment candidates for one target's review (unranked across targets) and off-diff notes."""
    changes = {f.path: f for f in files if f.status != "deleted"}
    groups: dict[str, tuple[str, LineRange, list[_Item]]] = {}
    notes: list[OffDiffNote] = []
    for item in _items(review):
        placed = False
        for span in item.spans if item.cites else []:
            path = repo_path(tree, target.dir, span.file)
            hit = _hit(span, changes[path]) if path in changes else None
            if hit is None:
                continue
            fp = fingerprint(target.dir, path, item.kind, span.quote, item.criteria)
            groups.setdefault(fp, (path, hit, []))[2].append(item)
            placed = True
            break
        if not placed and (item.spans or not item.cites):
            where = ", ".join(f"{posixpath.join(target.dir, s.file)}:{s.start_line}" for s in item.spans)
            why = "" if item.cites else " (not confirmed by evidence)"
            notes.append(OffDiffNote(target=target.dir, text=f"{item.title}{why}: {item.text}", where=where,
                                     sources=[item.source]))
    planned, fix_notes = _fix_comments(review, target, changes, tree)
    notes += fix_notes
    for fp, (path, hit, items) in groups.items():
        lead = min(items, key=lambda i: i.rank)
        cites = list({e.id: e for i in items for e in i.cites}.values())
        merged = _Item(kind=lead.kind, title=lead.title, rank=lead.rank, criteria=lead.criteria, spans=lead.spans,
                       cites=cites, text=lead.text, source=lead.source)
        planned.append(PlannedComment(fingerprint=fp, path=path, line=hit.end,
                                      start_line=hit.start if hit.start < hit.end else None, rank=lead.rank,
                                      target=target.dir, sources=sorted({i.source for i in items}),
                                      body=_body(merged, fp, tree, _icon(lead.rank))))
    return planned, notes


def _inside(change: FileChange, start: int, end: int) -> bool:
    return any(r.start <= start and end <= r.end for r in change.added)


def _fix_body(fix: Fix, part: str, suggestion_block: str, fp: str) -> str:
    return "\n".join([f"**💡 verified fix {md_code(fix.id)}** for {md_text(fix.criterion)} ({md_text(fix.kind)}{part}; "
                      f"origin {md_code(fix.origin)}): "
                      f"{md_text(fix.description)}; rerunning {md_text(', '.join(fix.tools))} on the patched copy in "
                      "the sandbox passed the failing checks and kept every passing one.", "", suggestion_block, "",
                      fp_marker(fp)])


def _fix_comments(review: Review, target: ReviewTarget, changes: dict[str, FileChange],
                  tree: Path) -> tuple[list[PlannedComment], list[OffDiffNote]]:
    """Each verified fix as GitHub ``suggestion`` blocks on the lines it replaces, when the change wrote them."""
    planned, notes = [], []
    for fix in review.fixes.fixes if review.fixes else []:
        path = repo_path(tree, target.dir, fix.file)
        parts = fix.changes
        # Rationale: a suggestion quotes source verbatim (no escaping); source carrying an HTML comment could
        # plant a marker the bot reads back, so such a fix goes to the summary as a note instead
        planted = any("<!--" in line or FP_MARK in line for c in parts for line in c.new)
        on_diff = path in changes and all(_inside(changes[path], c.start_line, c.end_line) for c in parts)
        if planted or not on_diff:
            notes.append(OffDiffNote(target=target.dir, text=f"verified fix {fix.id} ({fix.kind}, origin {fix.origin}) "
                                     f"for {fix.criterion} "
                                     f"touches lines outside this change: {fix.description}; run kreview fix to get it",
                                     where=posixpath.join(target.dir, fix.file), sources=[fix.id]))
            continue
        for n, c in enumerate(parts):
            fp = fingerprint(target.dir, path, f"fix:{fix.kind}", "\n".join(c.old), [fix.criterion])
            part = f", part {n + 1} of {len(parts)}" if len(parts) > 1 else ""
            planned.append(PlannedComment(fingerprint=fp, path=path, line=c.end_line,
                                          start_line=c.start_line if c.start_line < c.end_line else None,
                                          rank=RANK_REQUIRED_FAIL, target=target.dir, sources=[fix.id],
                                          body=_fix_body(fix, part, suggestion(c), fp)))
    return planned, notes


def rank(comments: list[PlannedComment]) -> list[PlannedComment]:
    return sorted(comments, key=lambda c: (c.rank, c.path, c.line, c.fingerprint))
