"""A comparison's summary starts with its case's label; a case rebuilt from a rerun command has none
(its JSON carries only what decides the run), and its summary must not start with a bare colon."""

from __future__ import annotations

from tools.engine.checking import _labelled
from tools.engine.harness.case import Case


def test_a_labelled_case_prefixes_its_summary_and_a_rerun_case_does_not() -> None:
    text = "output 0: 3 of 8 elements outside atol=1e-05"
    assert _labelled(Case(id="correctness-0-0", seed=7, label="nominal, seed 7"), text) == f"nominal, seed 7: {text}"
    rerun = Case.model_validate({"id": "correctness-0-0", "seed": 7})
    assert _labelled(rerun, text) == text
