"""The rerun command on a generality/numerics item reproduces that item (``kreview rerun``)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reviewer.cli import app
from reviewer.core.config import ReviewConfig
from tests.kernelfiles import KERNELS, materialize
from tests.reviewcache import ReviewCache
from tests.e2e.tools.test_generality_numerics import TOOLS as PROBE_TOOLS


def _probe(args: list[str]) -> tuple[int, list[dict]]:
    res = CliRunner().invoke(app, [*args, "--format", "json"])
    try:
        return res.exit_code, json.loads(res.stdout)
    except json.JSONDecodeError:
        return res.exit_code, [{"stdout": res.stdout, "exception": repr(res.exception)}]


@pytest.mark.slow
def test_generality_rerun_reproduces_the_smallest_failing_configuration(tmp_path: Path, config: ReviewConfig,
                                                                         reviews: ReviewCache) -> None:
    sub = materialize(KERNELS / "elementwise" / "bad_tail_grid_floor.py", tmp_path / "sub")
    # the elementwise corpus's review of this file (tests/e2e/test_kernel_verdicts.py), shared per session
    review = reviews.review(sub, config.model_copy(update={"only": PROBE_TOOLS}))
    failing = [e for e in review.evidence if e.tool == "generality" and e.outcome == "fail"]
    assert failing
    item = failing[0]
    argv = shlex.split(item.rerun)
    assert argv[:2] == ["kreview", "rerun"]
    code, items = _probe(argv[1:])
    assert code == 1, items  # the item still fails: exit 1, as git bisect run reads it
    assert len(items) == 1 and items[0]["outcome"] == "fail" and items[0]["defect"] == item.defect
    def same(case: dict) -> dict:
        return {k: v for k, v in case.items() if k != "label"}  # the label is not part of --case

    assert same(items[0]["inputs"]["case"]) == same(item.inputs["case"])


@pytest.mark.slow
def test_numerics_probe_reruns_one_probe_by_id(tmp_path: Path) -> None:
    sub = materialize(KERNELS / "softmax" / "bad_no_max_subtraction.py", tmp_path / "sub")
    case = {"id": "numerics-large_magnitude", "seed": 5, "transforms": [{"kind": "scale", "args": {"factor": 1e3}}]}
    code, items = _probe(["rerun", str(sub), "--tool", "numerics", "--case", json.dumps(case)])
    assert code == 1 and len(items) == 1, items
    assert items[0]["outcome"] == "fail" and items[0]["defect"] == "large_magnitude"
    code, items = _probe(["rerun", str(sub), "--tool", "numerics", "--case", json.dumps({"id": "numerics-determinism",
                                                                                            "seed": 5})])
    assert code == 0 and items[0]["outcome"] == "pass"
    code, _ = _probe(["rerun", str(sub), "--tool", "numerics", "--case", json.dumps({"id": "nonsense", "seed": 5})])
    assert code == 2
