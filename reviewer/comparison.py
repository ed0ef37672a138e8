"""Side by side: several reviewed implementations of one task, their figures in one table, and a ranking
with its reasons. Works on finished reviews only (each is an ordinary ``kreview review`` run)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from reviewer.core.models import Review
from tools.engine.differential import PairReport
from tools.engine.registry import results
from tools.engine.results import CorrectnessResult, ResourcesResult

_VERDICT_RANK = {"accept": 0, "needs_human": 1, "reject": 2}


class Column(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    run_id: str
    framework: str | None = None
    overall: str
    criteria: dict[str, str]
    correctness: dict[str, Any] = Field(default_factory=dict)
    compiled: dict[str, str] = Field(default_factory=dict)  # target -> one line
    resources: dict[str, str] = Field(default_factory=dict)  # target -> one line
    concerns: list[str] = Field(default_factory=list)
    roofline: str | None = None
    timings: list[str] = Field(default_factory=list)


class RunComparison(BaseModel):
    model_config = ConfigDict(extra="forbid")

    columns: list[Column]
    ranking: list[dict[str, Any]]
    same_reference: bool
    original: str | None = None
    """The implementation a port names as its original (kreview.toml ``[port] original``): the behaviour to preserve."""
    behaviour: list[PairReport] = Field(default_factory=list)
    """Differences in behaviour: each pair run on the same configurations, disagreements shrunk."""
    notes: list[str] = Field(default_factory=list)


def _reference_hash(path: Path) -> str | None:
    for name in ("reference.py", "task.py"):
        f = path / name
        if f.is_file():
            return hashlib.sha256(f.read_bytes()).hexdigest()[:16]
    return None


def _correctness(review: Review) -> dict[str, Any]:
    errs, ulps, ratios = [], [], []
    for _, r in results(review.evidence, CorrectnessResult):
        for o in r.comparison.outputs if r.comparison else []:
            if o.max_abs_err is not None:
                errs.append(o.max_abs_err)
            if o.max_ulp is not None:
                ulps.append(o.max_ulp)
        if r.error_budget is not None and r.error_budget.ratio is not None:
            ratios.append(r.error_budget.ratio)
    out: dict[str, Any] = {}
    if errs:
        out["max_abs_err"] = max(errs)
    if ulps:
        out["max_ulp"] = max(ulps)
    if ratios:
        out["float64_error_ratio"] = round(max(ratios), 3)
    return out


def column(name: str, review: Review) -> Column:
    col = Column(name=name, run_id=review.run_id, framework=getattr(review.submission, "framework", None),
                 overall=review.overall, criteria={c.id: c.verdict for c in review.criteria},
                 correctness=_correctness(review))
    resources = {e.id: r for e, r in results(review.evidence, ResourcesResult)}
    for e in review.evidence:
        res = resources.get(e.id)
        target = str(e.config.get("target") if isinstance(e.config.get("target"), str)
                     else (res.arch if res is not None else e.result.get("arch")) or "")
        if e.tool == "compiled_code" and e.outcome == "info":
            col.compiled[target or e.id] = e.summary.split(": ", 1)[-1]
        elif res is not None and e.outcome in ("pass", "fail"):
            occ = res.occupancy
            occ_t = f", occupancy {occ.occupancy:.0%} ({occ.limiter})" if occ is not None and occ.occupancy else ""
            col.resources[target or e.id] = (f"{res.registers} regs, {res.spill_stores or 0} B "
                                             f"spilled, {res.smem_per_block or 0} B smem{occ_t}")
        elif e.tool == "roofline" and col.roofline is None:
            col.roofline = e.summary[:200]
        elif e.tool == "benchmark" and e.outcome in ("pass", "fail"):
            col.timings.append(e.summary[:200])
    col.concerns = sorted({f.category for f in review.findings if f.severity in ("warning", "error")})
    return col


def _losses(name: str, reports: list[PairReport]) -> int:
    """Disagreements of ``name`` where float64 judged the other implementation closer."""
    return sum(1 for rep in reports if name in rep.names and rep.smallest is not None and rep.smallest.disagree
               and rep.smallest.closer_to_float64 not in (None, name))


def _key(col: Column, reports: list[PairReport] | None = None) -> tuple[Any, ...]:
    fails = sum(1 for v in col.criteria.values() if v == "fail")
    unverified = sum(1 for v in col.criteria.values() if v == "unverified")
    ratio = col.correctness.get("float64_error_ratio", float("inf"))
    return (_VERDICT_RANK.get(col.overall, 3), fails, unverified, _losses(col.name, reports or []),
            len(col.concerns), ratio, col.name)


def _behaviour_reasons(name: str, reports: list[PairReport]) -> list[str]:
    out = []
    for rep in reports:
        if name not in rep.names or rep.smallest is None or not rep.smallest.disagree:
            continue
        other = rep.names[1] if rep.names[0] == name else rep.names[0]
        closer = rep.smallest.closer_to_float64
        if rep.original is not None and name != rep.original:
            what = f"diverges from its original {other}"
        else:
            what = f"disagrees with {other}"
        judged = ("float64 judges it closer" if closer == name else f"float64 judges {closer} closer" if closer
                  else "no float64 judge")
        out.append(f"{what} on {rep.cases_disagreeing} of {rep.cases_checked} case(s) ({judged})")
    return out


def compare(named: list[tuple[str, Path, Review]], behaviour: list[PairReport] | None = None,
            original: str | None = None, notes: list[str] | None = None) -> RunComparison:
    cols = [column(n, r) for n, _, r in named]
    behaviour = behaviour or []
    hashes = {_reference_hash(p) for _, p, _ in named}
    ranked = sorted(cols, key=lambda c: _key(c, behaviour))
    ranking = []
    for i, col in enumerate(ranked, 1):
        fails = [k for k, v in col.criteria.items() if v == "fail"]
        unver = [k for k, v in col.criteria.items() if v == "unverified"]
        reasons = [f"overall {col.overall}"]
        reasons += [f"fails {', '.join(fails)}"] if fails else []
        reasons += [f"unverified {', '.join(unver)}"] if unver else []
        reasons += [f"concerns: {', '.join(col.concerns)}"] if col.concerns else ["no concern"]
        if "float64_error_ratio" in col.correctness:
            reasons.append(f"error {col.correctness['float64_error_ratio']}x the reference's own float64 error")
        reasons += _behaviour_reasons(col.name, behaviour)
        ranking.append({"rank": i, "name": col.name, "reasons": reasons})
    notes = ([] if len(hashes) == 1 else ["the implementations do not share one reference file: the figures "
                                          "compare different tasks"]) + list(notes or [])
    return RunComparison(columns=cols, ranking=ranking, same_reference=len(hashes) == 1, original=original,
                      behaviour=behaviour, notes=notes)


def render(cmp: RunComparison, fmt: str) -> str:
    if fmt == "json":
        return cmp.model_dump_json(indent=2)
    rows: list[tuple[str, list[str]]] = [("framework", [c.framework or "?" for c in cmp.columns]),
                                         ("overall", [c.overall for c in cmp.columns])]
    crit = sorted({k for c in cmp.columns for k in c.criteria})
    rows += [(k, [c.criteria.get(k, "-") for c in cmp.columns]) for k in crit]
    for key in ("max_abs_err", "max_ulp", "float64_error_ratio"):
        rows.append((key, [f"{c.correctness[key]:.3g}" if key in c.correctness else "-" for c in cmp.columns]))
    targets = sorted({t for c in cmp.columns for t in (*c.compiled, *c.resources)})
    for t in targets:
        rows.append((f"compiled {t}", [c.compiled.get(t, "-") for c in cmp.columns]))
        rows.append((f"resources {t}", [c.resources.get(t, "-") for c in cmp.columns]))
    rows.append(("concerns", [", ".join(c.concerns) or "none" for c in cmp.columns]))
    rows.append(("roofline", [c.roofline or "-" for c in cmp.columns]))
    rows.append(("GPU timings", ["; ".join(c.timings) or "not measured" for c in cmp.columns]))
    names = [c.name for c in cmp.columns]
    if cmp.original:
        rows.insert(0, ("role", ["original (behaviour to preserve)" if n == cmp.original else "port" for n in names]))
    for rep in cmp.behaviour:
        a, b = rep.names
        cells = []
        for n in names:
            if n not in rep.names:
                cells.append("-")
            elif rep.smallest is None:
                cells.append(f"agrees ({rep.cases_checked} cases, {rep.cases_bitwise_equal} bitwise equal)"
                             + (f"; refuses {rep.cases_refused[n]}" if rep.cases_refused.get(n) else ""))
            else:
                side = next(s for s in rep.smallest.sides if s.name == n)
                err = f"float64 max err {side.float64_max_err:.3g}" if side.float64_max_err is not None else side.status
                mark = " (closer)" if rep.smallest.closer_to_float64 == n else ""
                cells.append(f"{err}{mark}")
        rows.append((f"behaviour {a} vs {b}", cells))
    lines: list[str] = []
    if fmt == "markdown":
        lines.append("| | " + " | ".join(names) + " |")
        lines.append("|---|" + "---|" * len(names))
        lines += ["| " + k + " | " + " | ".join(v.replace("|", "\\|") for v in vals) + " |" for k, vals in rows]
        lines.append("")
        lines.append("Ranking:")
        lines += [f"{r['rank']}. **{r['name']}**: {'; '.join(r['reasons'])}" for r in cmp.ranking]
    else:
        for k, vals in rows:
            lines.append(k)
            lines += [f"  {n}: {v}" for n, v in zip(names, vals)]
        lines.append("ranking:")
        lines += [f"  {r['rank']}. {r['name']}: {'; '.join(r['reasons'])}" for r in cmp.ranking]
    lines += _render_behaviour(cmp, fmt)
    lines += [f"note: {n}" for n in cmp.notes]
    return "\n".join(lines)


def _render_behaviour(cmp: RunComparison, fmt: str) -> list[str]:
    if not cmp.behaviour:
        return []
    title = "Differences in behaviour" + (f" (port review: {cmp.original} is the original)" if cmp.original else "")
    lines = ["", (title + ":") if fmt == "markdown" else title.lower() + ":"]
    bullet, sub = ("- ", "  - ") if fmt == "markdown" else ("  ", "    ")
    tick = "`" if fmt == "markdown" else ""
    for rep in cmp.behaviour:
        lines.append(f"{bullet}{rep.summary}")
        if rep.smallest is not None:
            case = rep.smallest.case
            lines.append(f"{sub}smallest case: {_json(case)}; outputs sha256 "
                         + ", ".join(f"{s.name} {s.output_digest or s.status}" for s in rep.smallest.sides))
            lines.append(f"{sub}rerun: {tick}{rep.rerun}{tick}")
    return lines


def _json(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True, separators=(",", ":"))
