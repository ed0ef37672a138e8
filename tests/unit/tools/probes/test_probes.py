"""The probes tool names its own criteria: a probe off the nominal inputs bears on one, a nominal
input under another seed on the other (the engine only says which of the two a case is)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from reviewer.ingest import load_submission
from tests.kernelfiles import KERNELS, materialize
from tools.engine.harness.case import Transform
from tools.engine.probe_requests import ProbeRequest, to_case
from tools.probes import ProbesTool


@pytest.fixture
def kb(tmp_path: Path):
    return load_submission(materialize(KERNELS / "llm" / "assumes_contiguous.py", tmp_path / "sub"))


def test_off_nominal_and_nominal_probes_map_to_the_tools_declared_criteria(kb) -> None:
    tool, ctx = ProbesTool(), SimpleNamespace(submission=kb)

    def crit(**fields):
        c = to_case(ProbeRequest(assumption="a", **fields), kb, seed=7, index=1, interpreted=True)
        assert not isinstance(c, str), c
        return tool.criterion(c, ctx)

    assert set(ProbesTool.criteria) == {ProbesTool.off_nominal_criterion, ProbesTool.nominal_criterion}
    assert crit(params={"cols": 131}) == ProbesTool.off_nominal_criterion == "generality"
    assert crit(transforms=[Transform(kind="transpose_layout")]) == "generality"
    assert crit() == ProbesTool.nominal_criterion == "correctness"
