"""Calibration: metrics, eval set validation, and a small end-to-end calibrate run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reviewer.calibrate.evalset import load_eval_set
from reviewer.calibrate.metrics import cohen_kappa, criterion_agreement, overall_agreement
from reviewer.core.errors import CalibrationError
from tests.kernelfiles import KERNELS, materialize


def test_kappa_matches_hand_computation() -> None:
    # 10 items: raters agree on 4 pass + 4 fail; 1 pass/fail and 1 fail/pass disagreement.
    pairs = [("pass", "pass")] * 4 + [("fail", "fail")] * 4 + [("pass", "fail"), ("fail", "pass")]
    # po = 0.8; pe = 0.5*0.5 + 0.5*0.5 = 0.5; kappa = 0.6
    assert cohen_kappa(pairs) == pytest.approx(0.6)
    assert cohen_kappa([("pass", "pass")] * 3) is None  # one label throughout: chance agreement is 1, kappa 0/0
    assert cohen_kappa([]) is None


def test_unverified_is_never_agreement() -> None:
    rows = [("fail", "fail"), ("fail", "unverified"), ("pass", "pass"), ("pass", "not_applicable")]
    a = criterion_agreement("correctness", rows)
    assert (a.graded, a.decided, a.unverified, a.not_applicable, a.agree) == (4, 2, 1, 1, 2)
    assert a.accuracy_all == 0.5 and a.accuracy_decided == 1.0
    assert a.fail_recall == 1.0 and a.fail_precision == 1.0
    o = overall_agreement([("reject", "needs_human"), ("accept", "accept")])
    assert (o["agree"], o["needs_human"], o["accuracy_all"]) == (1, 1, 0.5)


def _grades(overall: str, **criteria: str) -> dict:
    return {"criteria": criteria, "overall": overall, "defect": "none" if overall == "accept" else "bug",
            "how_to_see": "run it", "grader": "test", "date": "2026-12-02"}


def _eval_set(root: Path) -> Path:
    s = root / "mini"
    for name, file, grades in (
        ("good", "good_triton.py", _grades("accept", builds="pass", correctness="pass")),
        ("wrong", "wrong_result.py", _grades("reject", builds="pass", correctness="fail")),
    ):
        d = materialize(KERNELS / "spine" / file, s / name)
        (d / "grades.json").write_text(json.dumps(grades))
    bad = s / "broken"
    materialize(KERNELS / "spine" / "good_triton.py", bad)
    (bad / "grades.json").write_text(json.dumps({"overall": "maybe"}))
    return s


def test_malformed_cases_are_reported(tmp_path: Path) -> None:
    cases, bad = load_eval_set(_eval_set(tmp_path))
    assert [c.name for c in cases] == ["good", "wrong"]
    assert [b.name for b in bad] == ["broken"] and "does not validate" in bad[0].why
    with pytest.raises(CalibrationError):
        load_eval_set(tmp_path / "nope")


def test_grades_name_criteria_of_the_rubric(tmp_path: Path) -> None:
    s = _eval_set(tmp_path)
    (s / "good" / "grades.json").write_text(json.dumps(_grades("accept", builds="pass", speed="pass")))
    _, bad = load_eval_set(s)  # the default rubric defines no "speed"
    assert sorted(b.name for b in bad) == ["broken", "good"]
    cases, _ = load_eval_set(s, ["builds", "speed"])
    assert [c.name for c in cases] == ["good"]  # "wrong" grades correctness, which this rubric lacks


def test_calibrate_end_to_end_is_resumable(tmp_path: Path) -> None:
    s = _eval_set(tmp_path)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "reviewer.cli", "calibrate", str(s), "--out", str(out), "--baseline",
           "kernelbench", "--only", "builds", "--only", "correctness"]
    env = {**os.environ}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr
    cal = json.loads((out / "calibration.json").read_text())
    corr = next(c for c in cal["criteria"] if c["criterion"] == "correctness")
    assert (corr["graded"], corr["agree"], corr["kappa"]) == (2, 2, 1.0)
    assert cal["overall"]["cases"] == 2 and cal["malformed"][0]["case"] == "broken"
    # the generality/numerics/integrity criteria are not graded here, so overall is needs_human
    assert cal["baseline"]["overall"]["agree"] == 2
    page = (out / "report.html").read_text()  # real tables and one chart per quantity, not Markdown in <pre>
    assert 'id="chart-accuracy"' in page and 'id="chart-kappa"' in page and "<pre>" not in page
    assert "<td>correctness</td><td>2</td><td>2</td>" in page
    assert "| correctness | 2 | 2 |" in proc.stdout
    builds_row = next(ln for ln in proc.stdout.splitlines() if ln.startswith("| builds |"))
    assert "n/a (n=2)" in builds_row  # both cases build: one label throughout, kappa undefined
    stamps = {p.name: p.stat().st_mtime_ns for p in (out / "cases").iterdir()}
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert again.returncode == 0, again.stderr
    assert {p.name: p.stat().st_mtime_ns for p in (out / "cases").iterdir()} == stamps  # nothing redone
    assert again.stderr.count("(cached)") == 2


def test_cache_is_keyed_on_every_setting_that_changes_a_verdict(tmp_path: Path, monkeypatch) -> None:
    from reviewer.calibrate import runner
    from reviewer.core.config import ReviewConfig, Tolerance

    cases, _ = load_eval_set(_eval_set(tmp_path))
    reviewed: list[str] = []

    def fake_review(case_path: str, name: str, config_json: str, baseline: bool, ship: bool = False) -> dict:
        reviewed.append(name)
        return runner.CaseResult(name=name, overall="accept", criteria={"builds": "pass"}).model_dump()

    monkeypatch.setattr(runner, "review_case", fake_review)

    def run(config: ReviewConfig, out: str = "out") -> list[str]:
        reviewed.clear()
        runner.run_cases(cases, tmp_path / out, config, workers=1, force=False, baseline=False)
        return sorted(reviewed)

    base = ReviewConfig(seed=0, signoff=False)
    assert run(base) == ["good", "wrong"]
    assert run(base) == []  # same settings: cached
    assert run(base.model_copy(update={"runs_dir": tmp_path / "elsewhere"})) == []  # where runs go is no setting
    assert run(base.model_copy(update={"seed": 1})) == ["good", "wrong"]
    assert run(base.model_copy(update={"only": ["builds"]})) == ["good", "wrong"]
    assert run(base.model_copy(update={"skip": ["numerics"]})) == ["good", "wrong"]
    assert run(base.model_copy(update={"seeds": 5})) == ["good", "wrong"]
    assert run(base.model_copy(update={"tolerance": Tolerance(atol=1e-3)})) == ["good", "wrong"]
    rubric = tmp_path / "r.yaml"
    rubric.write_text("name: a\n")
    with_rubric = base.model_copy(update={"rubric": rubric})
    assert run(with_rubric) == ["good", "wrong"]
    assert run(with_rubric) == []
    rubric.write_text("name: b\n")  # same path, other rules
    assert run(with_rubric) == ["good", "wrong"]
    (cases[0].path / "grades.json").write_text((cases[0].path / "grades.json").read_text() + "\n")
    assert run(with_rubric) == []  # regrading a case changes no verdict
    (cases[0].path / "submission.py").write_text((cases[0].path / "submission.py").read_text() + "\n# edited\n")
    assert run(with_rubric) == ["good"]
    monkeypatch.setattr(runner, "reviewer_fingerprint", lambda: "another reviewer version")
    assert run(with_rubric) == ["good", "wrong"]
