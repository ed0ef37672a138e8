"""The KernelBench-style baseline files its two verdicts under the criteria of the tools that are those
checks (Tool.standard_check), not under criterion ids written into the calibration code."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.calibrate.baseline import baseline_criteria, kernelbench_baseline
from reviewer.core.config import ReviewConfig
from reviewer.core.errors import ToolError
from reviewer.rubric import load_rubric
from tests.conftest import EXAMPLES
from tools.engine.registry import baseline_criterion, declared_criteria, tools


def test_the_baseline_criteria_are_the_declared_criteria_of_its_two_checks() -> None:
    runs, outputs = baseline_criteria()
    table = tools()
    by_check = {cls.standard_check: cls for cls in table.values() if cls.standard_check}
    assert set(by_check) == {"runs", "nominal_outputs"}
    assert (runs, outputs) == (by_check["runs"].criteria[0], by_check["nominal_outputs"].criteria[0])
    assert (runs, outputs) == ("builds", "correctness")
    known = {c.id for c in load_rubric(tools=declared_criteria()).criteria}
    assert {runs, outputs} <= known


def test_a_check_no_tool_is_refused() -> None:
    with pytest.raises(ToolError, match="exactly one tool"):
        baseline_criterion("fuzzing")


def test_a_submission_that_does_not_parse_is_filed_under_those_criteria(tmp_path: Path) -> None:
    root = tmp_path / "broken"
    root.mkdir()
    (root / "reference.py").write_text((EXAMPLES / "softmax_triton" / "reference.py").read_text())
    (root / "submission.py").write_text("def broken(:\n")
    got = kernelbench_baseline(root, ReviewConfig(seed=1))
    runs, outputs = baseline_criteria()
    assert (got[runs], got[outputs], got["overall"]) == ("fail", "unverified", "reject")
