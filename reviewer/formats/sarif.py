"""SARIF 2.1.0 (OASIS): one result per rubric criterion and per finding, for code-scanning UIs.

Mapping (SARIF §3.27.9-10): a failed criterion is ``kind: fail`` with ``level: error`` (``warning`` when
the criterion is optional); an unverified criterion is ``kind: review`` (a human must decide) and a
passed one ``kind: pass``, both with ``level: none`` as the standard requires for kinds other than fail;
not-applicable criteria are ``kind: notApplicable``. Findings are ``kind: fail`` when evidence confirms
them, ``review`` otherwise. Every result's ``properties`` hold its evidence ids and rerun commands.
"""

from __future__ import annotations

import re
from typing import Any

from reviewer import __version__
from reviewer.formats.common import Place, criterion_text, deciding, finding_places, places, reruns
from reviewer.core.models import Review

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
_KIND = {"fail": "fail", "unverified": "review", "pass": "pass", "not_applicable": "notApplicable"}


# Rationale: message texts quote submission output: controls (ANSI), bidi overrides and lone
# surrogates removed; brackets escaped (SARIF §3.11.6: "[text](id)" in a plain-text message is an
# embedded link, which a submission must not be able to make)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


def sarif_text(text: str) -> str:
    return re.sub(r"([\\\[\]])", r"\\\1", _CONTROL.sub("", text))


def _clean_messages(results: list[dict[str, Any]]) -> None:
    for r in results:
        r["message"]["text"] = sarif_text(r["message"]["text"])


def _location(p: Place) -> dict[str, Any]:
    art: dict[str, Any] = {"uri": p.path, "uriBaseId": "%SRCROOT%"} if p.relative else {"uri": f"file://{p.path}"}
    loc: dict[str, Any] = {"artifactLocation": art}
    if p.start_line:
        loc["region"] = {"startLine": p.start_line, "endLine": max(p.end_line or p.start_line, p.start_line)}
    return {"physicalLocation": loc}


def _fixes(review: Review, criterion: str) -> list[dict[str, Any]]:
    """SARIF §3.55 ``fix`` objects for a criterion's verified patches: one replacement per text edit
    (SARIF columns are 1-based; an empty deleted region is an insertion)."""
    if review.fixes is None:
        return []
    out = []
    for f in review.fixes.for_criterion(criterion):
        art = _location(finding_places(review, [])[0])["physicalLocation"]["artifactLocation"]  # the submission file
        reps = [{"deletedRegion": {"startLine": e.start_line, "startColumn": e.start_col + 1,
                                   "endLine": e.end_line, "endColumn": e.end_col + 1},
                 "insertedContent": {"text": e.text}} for e in f.edits]
        out.append({"description": {"text": sarif_text(f"{f.id} ({f.kind}, origin {f.origin}): {f.description}; "
                                                       f"verified by rerunning {', '.join(f.tools)} in the sandbox")},
                    "artifactChanges": [{"artifactLocation": art, "replacements": reps}],
                    "properties": {"origin": f.origin}})
    return out


def to_sarif(review: Review) -> dict[str, Any]:
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}

    def rule(rule_id: str, name: str, text: str) -> int:
        if rule_id not in index:
            index[rule_id] = len(rules)
            rules.append({"id": rule_id, "name": name, "shortDescription": {"text": text}})
        return index[rule_id]

    results: list[dict[str, Any]] = []
    for c in review.criteria:
        rid = f"criterion/{c.id}"
        kind = _KIND[c.verdict]
        res: dict[str, Any] = {
            "ruleId": rid, "ruleIndex": rule(rid, c.id, c.title), "kind": kind,
            "level": ("error" if c.required else "warning") if kind == "fail" else "none",
            "message": {"text": criterion_text(c)},
            "locations": [_location(p) for p in places(review, c)],
            "properties": {"verdict": c.verdict, "required": c.required,
                           "evidence": [e.id for e in deciding(review, c)], "rerun": reruns(review, c)},
        }
        fixes = _fixes(review, c.id)
        if fixes:
            res["fixes"] = fixes
        results.append(res)
    for f in review.findings:
        rid = f"finding/{f.category}"
        confirmed = bool(f.confirmed_by)
        kind = "fail" if confirmed else "review"
        results.append({
            "ruleId": rid, "ruleIndex": rule(rid, f.category, f"finding: {f.category}"), "kind": kind,
            "level": ({"error": "error", "warning": "warning", "info": "note"}[f.severity] if confirmed else "none"),
            "message": {"text": f.message},
            "locations": [_location(p) for p in finding_places(review, f.spans)],
            "properties": {"origin": f.origin, "confirmed_by": list(f.confirmed_by)},
        })
    _clean_messages(results)
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "kreview", "version": __version__, "semanticVersion": __version__,
                            "rules": rules}},
        "invocations": [{"executionSuccessful": True}],
        "results": results,
        "properties": {"run_id": review.run_id, "status": review.status, "overall": review.overall,
                       "overall_reason": review.overall_reason, "seed": review.seed,
                       "submission": review.submission.name},
    }
    if review.task is not None:  # the task audit's verdict on the task (its findings are results above)
        run["properties"]["task"] = {"degenerate": review.task.degenerate, "check": review.task.task_check}
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
