"""The heldout eval set: well-formed, one failing criterion per defective case (the one its defect line
names first), at least two clean cases, and each overall grade following from its criteria."""

from __future__ import annotations

from reviewer.calibrate.evalset import load_eval_set
from tests.conftest import ROOT

HELDOUT = ROOT / "eval_sets" / "heldout"


def test_heldout_set_is_well_formed() -> None:
    cases, bad = load_eval_set(HELDOUT)
    assert bad == [] and len(cases) >= 12
    clean = 0
    for c in cases:
        g = c.grades
        assert (c.path / "submission.py").is_file() and (c.path / "reference.py").is_file(), c.name
        failing = [k for k, v in g.criteria.items() if v == "fail"]
        assert g.overall == ("reject" if failing else "accept"), c.name
        if failing:
            assert len(failing) == 1 and g.defect.startswith(f"{failing[0]}:"), c.name
        else:
            clean += 1
            assert g.defect == "none", c.name
    assert clean >= 2
