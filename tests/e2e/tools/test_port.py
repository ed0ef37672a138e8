"""Port review: each file under tests/kernels/port is a port of tests/kernels/port/original (the family's
kreview.toml names it); its ``Port:`` line says whether it preserves the original's behaviour or
diverges, and a divergence comes shrunk, judged by float64, with a rerun that reproduces its bits."""

from __future__ import annotations

import json
import shlex

from typer.testing import CliRunner

from reviewer.cli import app
from tests.kernelfiles import Reviewed

TOOLS = ["builds", "correctness", "generality", "port"]


def port_expectation(run: Reviewed) -> str:
    for line in run.path.read_text().splitlines()[:20]:
        if line.startswith("Port:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{run.path} has no 'Port:' line")


def check_port(run: Reviewed) -> None:
    """Reviewed with builds, correctness, generality, port (tests/e2e/test_kernel_verdicts.py)."""
    items = [e for e in run.review.evidence if e.tool == "port"]
    note, verdicts = items[0], items[1:]
    assert note.outcome == "info" and "port review" in note.summary and note.result["original"]["name"] == "original"
    assert run.review.draft is not None and run.review.draft.headline[0].text.startswith("Port review: ")
    assert len(verdicts) == 1, [e.summary for e in items]
    item = verdicts[0]
    pair = item.result["pair"]
    if port_expectation(run) == "preserves":
        assert item.outcome == "pass" and pair["cases_disagreeing"] == 0 and pair["cases_checked"] >= 5
        return
    assert item.outcome == "fail" and item.defect == "port_divergence", item.summary
    smallest = pair["smallest"]
    assert pair["shrunk"] and smallest["disagree"] and smallest["closer_to_float64"] == "original"
    found = pair["found_on"]["params"]
    assert smallest["case"]["params"]["batch"] == 1 and smallest["input_elements"] < 1024 * 4
    assert smallest["input_elements"] <= sum(found.get(k, 1) for k in ("batch",)) * found.get("dim", 1024)
    # the rerun reproduces the divergence bit for bit (the same outputs' sha256)
    argv = shlex.split(item.rerun)
    assert argv[:2] == ["kreview", "rerun"] and "--case" in argv
    res = CliRunner().invoke(app, [*argv[1:], "--format", "json"])
    assert res.exit_code == 1, res.output  # reproduces the failure
    again = [e for e in json.loads(res.output) if e["tool"] == "port" and e["outcome"] == "fail"]
    assert len(again) == 1
    sides = again[0]["result"]["check"]["sides"]
    assert [s["output_digest"] for s in sides] == [s["output_digest"] for s in smallest["sides"]]
