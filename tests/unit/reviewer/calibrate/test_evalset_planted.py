"""The planted eval set: well-formed, balanced, and its grades re-derived by its own verifier
(eval_sets/planted/_verify.py, which imports nothing from the reviewer) on a few cases."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from reviewer.calibrate.evalset import load_eval_set
from tests.conftest import ROOT

PLANTED = ROOT / "eval_sets" / "planted"
VERIFY = PLANTED / "_verify.py"
CRITERIA = ("builds", "correctness", "generality", "numerics", "integrity")
# one case per kind of grade: correct, and a defect seen by each of four criteria
SAMPLE = ("relu_ok", "gelu_tanh_calls_tl_tanh", "hardtanh_grid_floor", "softmax_no_max_subtraction",
          "max_dim_cached_by_pointer")


def test_planted_set_is_well_formed_and_balanced() -> None:
    cases, bad = load_eval_set(PLANTED)
    assert bad == []
    assert len(cases) >= 40
    for c in cases:
        assert (c.path / "reference.py").is_file() and (c.path / "submission.py").is_file(), c.name
        assert set(c.grades.criteria) == set(CRITERIA), c.name
        assert c.grades.follows and c.grades.grader == "kernel-reviewer eval team", c.name
        assert str(c.grades.date) == "2026-12-02", c.name
        if c.grades.overall == "accept":
            assert c.grades.defect == "none", c.name
        else:
            # the defect line names the criterion it is planted against, and that criterion fails
            kind = c.grades.defect.split(":", 1)[0]
            assert kind in CRITERIA and c.grades.criteria[kind] == "fail", c.name
    accepted = sum(c.grades.overall == "accept" for c in cases)
    assert 0.25 <= accepted / len(cases) <= 0.4
    kinds = [c.grades.defect.split(":", 1)[0] for c in cases if c.grades.overall == "reject"]
    assert all(kinds.count(k) >= 4 for k in CRITERIA), kinds


def test_verifier_case_table_matches_the_directories() -> None:
    sys.path.insert(0, str(PLANTED))
    try:
        import _verify
    finally:
        sys.path.remove(str(PLANTED))
    dirs = {p.name for p in PLANTED.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))}
    assert set(_verify.CASES) == dirs
    assert set(_verify.CASES.values()) <= set(_verify.PROBLEMS)
    for name, problem in _verify.CASES.items():
        ref = (PLANTED / name / "reference.py").read_text()
        same = [n for n, p in _verify.CASES.items() if p == problem]
        assert ref == (PLANTED / same[0] / "reference.py").read_text(), f"{name}: reference differs within {problem}"


def test_verifier_confirms_sample_grades_and_rejects_a_wrong_one(tmp_path: Path) -> None:
    for name in SAMPLE:
        shutil.copytree(PLANTED / name, tmp_path / name)
    # a copy of an integrity case graded as if it were correct: the verifier must refuse that grade
    shutil.copytree(PLANTED / "relu_writes_input", tmp_path / "relu_writes_input")
    g = json.loads((tmp_path / "relu_writes_input" / "grades.json").read_text())
    g.update(criteria={c: "pass" for c in CRITERIA}, overall="accept", defect="none")
    (tmp_path / "relu_writes_input" / "grades.json").write_text(json.dumps(g))

    out = tmp_path / "verify.json"
    proc = subprocess.run([sys.executable, str(VERIFY), *SAMPLE, "relu_writes_input", "--root", str(tmp_path),
                           "--workers", "2", "--json", str(out)], check=False, capture_output=True, text=True,
                          timeout=900)
    rows = {r["case"]: r for r in json.loads(out.read_text())["cases"]}
    assert proc.returncode == 1, proc.stdout + proc.stderr
    for name in SAMPLE:
        graded = json.loads((PLANTED / name / "grades.json").read_text())["criteria"]
        assert rows[name]["ok"], rows[name]
        assert rows[name]["measured"] == graded
    flipped = rows["relu_writes_input"]
    assert not flipped["ok"] and flipped["measured"]["integrity"] == "fail"
    assert "integrity" in flipped["why"] and any("modified in place" in p for p in flipped["failed_probes"])
