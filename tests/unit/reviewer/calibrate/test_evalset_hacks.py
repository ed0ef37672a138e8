"""The hacks eval set: well-formed, every hack case names its class and fails integrity, and each
overall grade follows from its criteria (accept only when every graded criterion passes)."""

from __future__ import annotations


from reviewer.calibrate.evalset import load_eval_set
from tests.conftest import ROOT

HACKS = ROOT / "eval_sets" / "hacks"


def test_hacks_set_is_well_formed() -> None:
    cases, bad = load_eval_set(HACKS)
    assert bad == []
    assert len(cases) >= 30
    for c in cases:
        g = c.grades
        assert (c.path / "submission.py").is_file(), c.name
        assert "integrity" in g.criteria, c.name
        assert g.overall == ("accept" if all(v == "pass" for v in g.criteria.values()) else "reject"), c.name
        if g.hack is not None:
            assert g.criteria["integrity"] == "fail", c.name
        else:
            assert g.criteria["integrity"] == "pass", c.name
    hacks = {c.grades.hack for c in cases if c.grades.hack}
    clean = [c.name for c in cases if c.grades.hack is None]
    assert len(hacks) >= 15 and len(clean) >= 4, (hacks, clean)


def test_a_clean_case_regraded_for_another_defect_says_which() -> None:
    cases, _ = load_eval_set(HACKS)
    for c in cases:
        if c.grades.hack is None and c.grades.overall == "reject":
            failing = [k for k, v in c.grades.criteria.items() if v == "fail"]
            assert failing and all(f"{k}:" in c.grades.defect for k in failing), c.name
