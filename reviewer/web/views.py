"""What the review page shows, computed from a stored run: the first screen (failed and unverified
criteria, their deciding items, rerun commands and cited lines), the cited source lines, the evidence
grouped per criterion with its result, inputs and configuration as tables. Plain data for the
templates; nothing here runs code."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from reviewer.core.fixes import CaseRerun, Fix
from reviewer.core.models import Evidence, Review
from reviewer.core.unidiff import diff_lines
from reviewer.formats.text import blocked_reason, deciding, group, rerun_command, row_summary, smallest_case
from reviewer.runs import SOURCE_DIR

_MAX_SOURCE = 1 << 20


class Cite(BaseModel):
    ref: str  # evidence or finding id
    text: str
    anchor: str


class SourceLine(BaseModel):
    no: int
    text: str
    cites: list[Cite] = Field(default_factory=list)


class SourceListing(BaseModel):
    name: str
    lines: list[SourceLine] = Field(default_factory=list)
    missing: str = ""
    origin: str = ""

    @property
    def cited(self) -> int:
        return sum(1 for ln in self.lines if ln.cites)


def _read_source(run_dir: Path, root: str, name: str) -> tuple[str | None, str, str]:
    """(text, origin, why-missing). The run's own copy first; the submission folder only when the file
    resolves inside it (a cited name such as ``../../x`` is not followed)."""
    kept = (run_dir / SOURCE_DIR / name)
    candidates = [(run_dir / SOURCE_DIR, kept, "kept with the run")]
    if root:
        candidates.append((Path(root), Path(root) / name, "read from the submission folder"))
    for base, path, origin in candidates:
        try:
            real, base_real = path.resolve(), base.resolve()
            if real.is_relative_to(base_real) and real.is_file():
                if real.stat().st_size > _MAX_SOURCE:
                    return None, "", f"{name} is larger than {_MAX_SOURCE} bytes"
                return real.read_bytes().decode("utf-8", errors="replace"), origin, ""
        except OSError:
            continue
    return None, "", f"{name} is no longer available (not kept with the run, not in the submission folder)"


def source_files(review: Review, run_dir: Path) -> list[SourceListing]:
    cites: dict[str, dict[int, list[Cite]]] = {}

    def add(file: str, start: int, end: int, ref: str, text: str, anchor: str) -> None:
        per = cites.setdefault(file, {})
        for n in range(start, min(end, start + 400) + 1):
            per.setdefault(n, []).append(Cite(ref=ref, text=text, anchor=anchor))

    for e in review.evidence:
        for s in e.spans:
            add(s.file, s.start_line, s.end_line, e.id, f"[{e.outcome}] {e.summary}", f"ev-{e.id}")
    for f in review.findings:
        for s in f.spans:
            add(s.file, s.start_line, s.end_line, f.id, f"[{f.severity}] {f.message}", f"finding-{f.id}")
    names = [review.submission.submission_file] + sorted(n for n in cites if n != review.submission.submission_file)
    out = []
    for name in names:
        text, origin, why = _read_source(run_dir, review.submission.root, name)
        if text is None:
            out.append(SourceListing(name=name, missing=why))
            continue
        per = cites.get(name, {})
        out.append(SourceListing(name=name, origin=origin,
                              lines=[SourceLine(no=i, text=t, cites=per.get(i, []))
                                     for i, t in enumerate(text.splitlines(), start=1)]))
    return out


def _scalars(data: Any, prefix: str = "", out: list[tuple[str, str]] | None = None, limit: int = 16,
             strings: bool = False) -> list[tuple[str, str]]:
    """Leaf values of a result as (path, value) rows; ``strings`` keeps short texts and short lists too
    (a case's id, a dtype, a shape), which inputs and configuration are mostly made of."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(data, dict):
        for k, v in data.items():
            _scalars(v, f"{prefix}.{k}" if prefix else str(k), out, limit, strings)
    elif isinstance(data, list) and data and all(isinstance(x, dict) for x in data[:3]):
        for i, item in enumerate(data[:3]):
            _scalars(item, f"{prefix}[{i}]", out, limit, strings)
    elif isinstance(data, bool) or data is None:
        if strings and isinstance(data, bool):
            out.append((prefix, "yes" if data else "no"))
    elif isinstance(data, (int, float)):
        out.append((prefix, f"{data:.4g}" if isinstance(data, float) else str(data)))
    elif strings and isinstance(data, str) and data and len(data) <= 160:
        out.append((prefix, data))
    elif strings and isinstance(data, list) and data and len(data) <= 8 \
            and all(isinstance(x, (int, float, str)) and not isinstance(x, bool) for x in data):
        out.append((prefix, "[" + ", ".join(str(x) for x in data) + "]"))
    return out[:limit]


def _label(path: str) -> str:
    """``result.outputs[0].max_abs_error`` -> ``outputs[0] › max abs error``: a row label a reader scans."""
    return " › ".join(part.replace("_", " ") for part in path.split("."))


class FactTable(BaseModel):
    """One table of an evidence item: its result, inputs or configuration, as labelled rows."""

    title: str
    rows: list[tuple[str, str]]


class EvidenceView(BaseModel):
    ev: Evidence
    detail: str
    shown: str = ""
    """The label drawn: the outcome, or ``concern`` for an item that found something without deciding the
    verdict (a passing item naming a defect, a failing one its criterion does not fail on)."""
    tables: list[FactTable] = Field(default_factory=list)
    rerun: str = ""


def evidence_view(e: Evidence, verdict: str = "") -> EvidenceView:
    concern = bool(e.defect) and (e.outcome == "pass" or (e.outcome == "fail" and verdict not in ("", "fail")))
    tables = [FactTable(title=title, rows=[(_label(k), v) for k, v in rows]) for title, rows in
              (("result", _scalars(e.result)), ("inputs", _scalars(e.inputs, strings=True, limit=10)),
               ("configuration", _scalars(e.config, strings=True, limit=10))) if rows]
    return EvidenceView(ev=e, shown="concern" if concern else e.outcome, tables=tables,
                        rerun=rerun_command(e) if e.rerun else "",
                        detail=json.dumps({"inputs": e.inputs, "config": e.config, "result": e.result}, indent=2,
                                          default=str)[:60000])


class CriterionView(BaseModel):
    id: str
    title: str
    verdict: str
    summary: str
    required: bool
    evidence: list[EvidenceView]
    blocked: str = ""
    """Why it was not assessed (a required criterion did not pass): its one reason on the first screen."""
    row: str = ""
    """Its summary in the verdicts table (reviewer/formats/text.py:row_summary): a cause shown above only counts."""


def criteria_views(review: Review) -> list[CriterionView]:
    by_id = review.evidence_by_id()
    return [CriterionView(id=c.id, title=c.title, verdict=c.verdict, summary=c.summary, required=c.required,
                          blocked=blocked_reason(c) if c.blocked_by else "", row=row_summary(c),
                          evidence=[evidence_view(by_id[i], c.verdict) for i in c.evidence if i in by_id])
            for c in review.criteria]


class Excerpt(BaseModel):
    """A few lines of a source file around a cited span (the cited ones flagged), for the first screen."""

    file: str
    lines: list[SourceLine]


class FocusItem(BaseModel):
    """One group of items reporting the same defect at the same place: the smallest case shown in full."""

    view: EvidenceView
    excerpts: list[Excerpt] = Field(default_factory=list)
    like_it: list[str] = Field(default_factory=list)
    """The group's other item ids."""
    case: str = ""


class DiffRow(BaseModel):
    kind: str  # hunk | add | del | ctx
    old: int | None = None
    new: int | None = None
    text: str
    comments: list[str] = Field(default_factory=list)


class FixView(BaseModel):
    """A verified fix as the page draws it: its diff as numbered rows, the failing cases its rerun turned into
    passes, and what else was rerun (the checks that passed before and still pass)."""

    fix: Fix
    rows: list[DiffRow]
    fixed: list[CaseRerun]
    kept: int
    """Checks that passed before the patch and pass on the patched copy."""
    apply: str
    """The command that applies the run's verified fixes to the submission."""


def fix_views(review: Review, criterion: str) -> list[FixView]:
    if review.fixes is None:
        return []
    apply = f"kreview fix {shlex.quote(review.submission.root)} --run {review.run_id} --apply"
    return [FixView(fix=f, rows=diff_rows(f.diff), apply=apply,
                    fixed=[r for r in f.reruns if r.before == "fail" and r.after == "pass"],
                    kept=sum(r.before == r.after == "pass" for r in f.reruns))
            for f in review.fixes.for_criterion(criterion)]


class FocusCriterion(BaseModel):
    """A failed or unverified criterion as the first screen shows it: the items that decide it, grouped as
    the text report groups them, each with its rerun command and the source lines it (or a finding it
    confirms) cites."""

    criterion: CriterionView
    items: list[FocusItem]
    more: int = 0
    fixes: list[FixView] = Field(default_factory=list)
    """The run's verified patches for this criterion (``kreview review --fix``), drawn as diffs."""


_CONTEXT, _EXCERPT_MAX = 1, 9
_SHOWN_GROUPS = 3


def _excerpts(spans: list, by_file: dict[str, SourceListing]) -> list[Excerpt]:
    out: list[Excerpt] = []
    for s in spans[:3]:
        listing = by_file.get(s.file)
        if listing is None or not listing.lines:
            continue
        first = max(1, s.start_line - _CONTEXT)
        last = min(len(listing.lines), s.end_line + _CONTEXT, first + _EXCERPT_MAX - 1)
        lines = listing.lines[first - 1:last]
        if lines and all(e.file != s.file or e.lines[0].no != first for e in out):
            out.append(Excerpt(file=s.file, lines=lines))
    return out


def focus_views(review: Review, criteria: list[CriterionView], sources: list[SourceListing]) -> list[FocusCriterion]:
    """Required criteria first, failed before unverified; per criterion its deciding items grouped (same
    tool, defect and place), each group's smallest case with the lines it cites, else the lines of a
    finding it confirms."""
    by_file = {s.name: s for s in sources}
    by_id = review.evidence_by_id()
    results = {c.id: c for c in review.criteria}
    order = {"fail": 0, "unverified": 1}
    out = []
    for c in sorted((c for c in criteria if c.verdict in order), key=lambda c: (not c.required, order[c.verdict])):
        views = {v.ev.id: v for v in c.evidence}
        # a criterion not assessed is said with its one reason, not its own items' (theirs are in its section)
        groups = [] if c.blocked else group(deciding(results[c.id], by_id), review.findings)
        items = []
        for g in groups[:_SHOWN_GROUPS]:
            e = g.first
            spans = list(e.spans) or [s for f in review.findings if e.id in f.confirmed_by for s in f.spans]
            items.append(FocusItem(view=views.get(e.id) or evidence_view(e, c.verdict), case=smallest_case(e),
                                   excerpts=_excerpts(spans, by_file), like_it=[x.id for x in g.items if x.id != e.id]))
        out.append(FocusCriterion(criterion=c, items=items, more=max(0, len(groups) - _SHOWN_GROUPS),
                                  fixes=fix_views(review, c.id) if c.verdict == "fail" else []))
    return out


class DiffFile(BaseModel):
    path: str
    status: str
    binary: bool = False
    rows: list[DiffRow] = Field(default_factory=list)
    comments: int = 0


def diff_rows(diff: str, comments: dict[int, list[str]] | None = None) -> list[DiffRow]:
    """A unified diff as rows numbered on both sides (``comments``: texts on new-side lines); the file
    header lines are left out, as the page names the file above the table (reviewer/core/unidiff.py)."""
    at = comments or {}
    return [DiffRow(kind=d.kind, old=d.old, new=d.new, text=d.text,
                    comments=at.get(d.new, []) if d.kind in ("add", "ctx") else [])
            for d in diff_lines(diff)]


def change_view(run_dir: Path) -> tuple[dict[str, str], list[DiffFile]] | None:
    """The pull request change a run reviewed (``change.json``), as diff rows with the planned inline
    comments on the new-side lines they sit on; None for runs that did not come from a change."""
    path = run_dir / "change.json"
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {"error": "change.json is unreadable"}, []
    files = []
    for f in data.get("files") or []:
        if not isinstance(f, dict):
            continue
        at: dict[int, list[str]] = {}
        for c in f.get("comments") or []:
            if isinstance(c, dict) and isinstance(c.get("line"), int):
                at.setdefault(c["line"], []).append(str(c.get("body", "")))
        rows = diff_rows(str(f.get("diff", "")), at)
        files.append(DiffFile(path=str(f.get("path", "?")), status=str(f.get("status", "")), binary=bool(f.get("binary")),
                              rows=rows, comments=sum(len(v) for v in at.values())))
    meta = {"target": str(data.get("target", "")), "base": str(data.get("base", ""))[:12],
            "head": str(data.get("head", ""))[:12]}
    return meta, files
