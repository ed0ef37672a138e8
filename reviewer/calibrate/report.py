"""Calibration summary: metrics per criterion, overall agreement, the baseline side by side,
disagreements; rendered as Markdown, JSON and an HTML page with plots."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from reviewer.calibrate.evalset import EvalCase, Malformed
from reviewer.calibrate.metrics import CriterionAgreement, criterion_agreement, overall_agreement
from reviewer.calibrate.runner import CaseResult


class Disagreement(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case: str
    criterion: str
    human: str
    reviewer: str
    summary: str = ""
    evidence: list[str] = Field(default_factory=list)
    run_dir: str | None = None


class DegenerateTask(BaseModel):
    """A case whose task a wrong kernel can pass (the review's task audit; docs/task-audit.md)."""

    model_config = ConfigDict(extra="forbid")

    case: str
    path: str
    findings: list[str] = Field(default_factory=list)
    run_dir: str | None = None


class Calibration(BaseModel):
    model_config = ConfigDict(extra="forbid")

    eval_set: str
    cases: int
    malformed: list[dict[str, str]]
    errors: list[dict[str, str]]
    criteria: list[CriterionAgreement]
    overall: dict[str, Any]
    baseline: dict[str, Any] | None = None
    disagreements: list[Disagreement]
    undecided: list[Disagreement] = Field(default_factory=list)
    """graded cases the reviewer left unverified / not_applicable: reported, never agreement"""
    wall_time_s: float | None = None
    workers: int = 1
    tasks_audited: int = 0
    """cases whose review audited the task"""
    degenerate_tasks: list[DegenerateTask] = Field(default_factory=list)


def summarize(set_path: Path, cases: list[EvalCase], bad: list[Malformed], results: list[CaseResult], *,
              criteria: Sequence[str], wall_time_s: float | None = None, workers: int = 1) -> Calibration:
    """``criteria``: the rubric's criterion ids, in its order."""
    by_name = {r.name: r for r in results}
    ok = [(c, by_name[c.name]) for c in cases if c.name in by_name and by_name[c.name].error is None]
    errors = [{"case": r.name, "error": (r.error or "")[:500]} for r in results if r.error]
    agreements = []
    disagreements: list[Disagreement] = []
    undecided: list[Disagreement] = []
    for crit in criteria:
        rows = []
        for case, res in ok:
            human = case.grades.criteria.get(crit)
            if human is None:
                continue
            got = res.criteria.get(crit, "unverified")
            rows.append((human, got))
            if got != human:
                row = Disagreement(case=case.name, criterion=crit, human=human, reviewer=got,
                                   summary=res.summaries.get(crit, "")[:300], evidence=res.evidence.get(crit, []),
                                   run_dir=res.run_dir)
                (disagreements if got in ("pass", "fail") else undecided).append(row)
        if rows:
            agreements.append(criterion_agreement(crit, rows))
    overall_rows = [(c.grades.overall, r.overall or "needs_human") for c, r in ok]
    for case, res in ok:
        if res.overall != case.grades.overall:
            (disagreements if res.overall in ("accept", "reject") else undecided).append(Disagreement(case=case.name, criterion="overall", human=case.grades.overall,
                                              reviewer=res.overall or "?", run_dir=res.run_dir,
                                              summary=f"defect: {case.grades.defect}"))
    baseline = None
    base_rows = [(c, r.baseline) for c, r in ok if r.baseline and "error" not in r.baseline]
    if base_rows:
        from reviewer.calibrate.baseline import baseline_criteria

        baseline = {
            "overall": overall_agreement([(c.grades.overall, b["overall"]) for c, b in base_rows]),
            "criteria": [criterion_agreement(k, [(c.grades.criteria[k], b[k]) for c, b in base_rows
                                                 if k in c.grades.criteria]).model_dump()
                         for k in baseline_criteria()],
            "missed_defects": [c.name for c, b in base_rows if c.grades.overall == "reject" and b["overall"] == "accept"],
        }
    audited = [(c, r) for c, r in ok if r.task is not None]
    degenerate = [DegenerateTask(case=c.name, path=r.task.path, findings=r.task.findings, run_dir=r.run_dir)
                  for c, r in audited if r.task.degenerate]
    return Calibration(eval_set=str(set_path), cases=len(cases),
                       malformed=[{"case": m.name, "why": m.why} for m in bad], errors=errors, criteria=agreements,
                       overall=overall_agreement(overall_rows), baseline=baseline, disagreements=disagreements,
                       undecided=undecided, tasks_audited=len(audited), degenerate_tasks=degenerate,
                       wall_time_s=wall_time_s, workers=workers)


def _f(x: float | None, pct: bool = False) -> str:
    if x is None:
        return "—"
    return f"{100 * x:.0f}%" if pct else f"{x:.2f}"


def _k(kappa: float | None, n: int) -> str:
    """Kappa with the number of items it is computed over; "n/a" where it is undefined."""
    return f"{kappa:.2f} (n={n})" if kappa is not None else f"n/a (n={n})"


def to_markdown(cal: Calibration) -> str:
    lines = [f"# Calibration: {cal.eval_set}", "",
             f"{cal.cases} cases, {len(cal.malformed)} malformed, {len(cal.errors)} reviewer errors"
             + (f", {cal.wall_time_s:.0f} s with {cal.workers} worker(s)" if cal.wall_time_s else ""), "",
             "| criterion | graded | decided | unverified | accuracy (all) | accuracy (decided) | kappa | "
             "fail precision | fail recall |", "|---|---|---|---|---|---|---|---|---|"]
    for c in cal.criteria:
        lines.append(f"| {c.criterion} | {c.graded} | {c.decided} | {c.unverified + c.not_applicable} | "
                     f"{_f(c.accuracy_all, True)} | {_f(c.accuracy_decided, True)} | {_k(c.kappa, c.decided)} | "
                     f"{_f(c.fail_precision, True)} | {_f(c.fail_recall, True)} |")
    o = cal.overall
    lines += ["", f"**Overall accept/reject**: {o['agree']} of {o['cases']} agree "
                  f"({_f(o['accuracy_all'], True)}; {o['needs_human']} needs_human; kappa {_k(o['kappa'], o['decided'])})", ""]
    if cal.baseline:
        b = cal.baseline["overall"]
        lines += ["## KernelBench-style baseline (nominal inputs, 5 seeds, allclose)", "",
                  "| | reviewer | baseline |", "|---|---|---|",
                  f"| overall agreement | {_f(o['accuracy_all'], True)} | {_f(b['accuracy_all'], True)} |",
                  f"| overall kappa | {_k(o['kappa'], o['decided'])} | {_k(b['kappa'], b['decided'])} |"]
        for bc in cal.baseline["criteria"]:
            rc = next((c for c in cal.criteria if c.criterion == bc["criterion"]), None)
            lines.append(f"| {bc['criterion']} kappa | {_k(rc.kappa, rc.decided) if rc else 'n/a'} | "
                         f"{_k(bc['kappa'], bc['decided'])} |")
        missed = cal.baseline["missed_defects"]
        lines += ["", f"Defective cases the baseline accepts: {len(missed)}"
                      + (f" ({', '.join(missed)})" if missed else ""), ""]
    if cal.tasks_audited:
        lines += ["## Degenerate tasks (a wrong kernel can pass their check; never a kernel's failure)", "",
                  f"{len(cal.degenerate_tasks)} of {cal.tasks_audited} audited tasks are degenerate"
                  + (":" if cal.degenerate_tasks else "."), ""]
        lines += [f"- {t.case}: {', '.join(t.findings) or 'degenerate'} ({t.path})" for t in cal.degenerate_tasks]
        lines += [""] if cal.degenerate_tasks else []
    if cal.disagreements:
        lines += ["## Disagreements", "", "| case | criterion | human | reviewer | reviewer's reason | run |",
                  "|---|---|---|---|---|---|"]
        for d in cal.disagreements:
            reason = " ".join(d.summary.split()).replace("|", "\\|")[:160]
            ev = ", ".join(d.evidence[:4])
            lines.append(f"| {d.case} | {d.criterion} | {d.human} | {d.reviewer} | {reason} | "
                         f"{d.run_dir or ''} {ev} |")
    if cal.undecided:
        by_crit: dict[str, list[str]] = {}
        for d in cal.undecided:
            by_crit.setdefault(d.criterion, []).append(d.case)
        lines += ["", "## Left undecided by the reviewer (never counted as agreement)", ""]
        lines += [f"- {k} ({len(v)}): {', '.join(v[:12])}{' …' if len(v) > 12 else ''}" for k, v in by_crit.items()]
    if cal.malformed:
        lines += ["", "## Malformed cases", ""] + [f"- {m['case']}: {m['why']}" for m in cal.malformed]
    if cal.errors:
        lines += ["", "## Reviewer errors", ""] + [f"- {e['case']}: {e['error'][:200]}" for e in cal.errors]
    return "\n".join(lines) + "\n"


def to_html(cal: Calibration, markdown: str = "") -> str:
    """A standalone page: the same tables, confusion matrices and charts (SVG, accuracy and kappa on
    separate charts) as ``kreview serve --calibration``, each disagreement linked to its run's draft."""
    import os

    from markupsafe import Markup

    from reviewer.web.calplots import calibration_charts
    from reviewer.web.templating import environment

    data = cal.model_dump(mode="json")
    css = (Path(__file__).resolve().parents[1] / "web" / "static" / "style.css").read_text()

    def run_href(d: dict, evidence: str) -> str:
        run_dir = d.get("run_dir") or ""
        return Path(os.path.abspath(run_dir), "draft.md").as_uri() if run_dir else ""

    return environment().get_template("calibration_report.html").render(
        cal=data, charts=calibration_charts(data), css=Markup(css), run_href=run_href)


def write_outputs(cal: Calibration, out_dir: Path) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    md = to_markdown(cal)
    paths = {"json": out_dir / "calibration.json", "markdown": out_dir / "calibration.md",
             "html": out_dir / "report.html"}
    paths["json"].write_text(cal.model_dump_json(indent=2))
    paths["markdown"].write_text(md)
    paths["html"].write_text(to_html(cal, md))
    return paths
