"""The CLI end to end: the JSON contract, exit codes, and sign-off resumed from another process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DATA, EXAMPLES

KREVIEW = [sys.executable, "-m", "reviewer.cli"]


def _run(args: list[str], tmp_path: Path, check: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KREVIEW_RUNS_DIR": str(tmp_path / "runs")}
    return subprocess.run([*KREVIEW, *args], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=600, check=check)


@pytest.fixture(scope="module")
def buggy_review(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, subprocess.CompletedProcess[str]]:
    tmp = tmp_path_factory.mktemp("cli")
    proc = _run(["review", str(EXAMPLES / "gelu_triton_buggy"), "--format", "json", "--seed", "5",
                 "--only", "builds", "--only", "correctness", "--fail-on", "reject"], tmp)
    return tmp, json.loads(proc.stdout), proc


def test_json_contract(buggy_review) -> None:
    _, data, proc = buggy_review
    assert proc.returncode == 3, proc.stderr  # --fail-on reject and the verdict is reject
    assert data["overall"] == "reject" and data["status"] == "awaiting_signoff"
    assert data["run_id"] and data["seed"] == 5
    ids = {e["id"] for e in data["evidence"]}
    for c in data["criteria"]:
        assert set(c) >= {"id", "verdict", "summary", "evidence"}
        assert c["verdict"] in {"pass", "fail", "unverified", "not_applicable"}
        assert set(c["evidence"]) <= ids
    corr = next(c for c in data["criteria"] if c["id"] == "correctness")
    assert corr["verdict"] == "fail"
    failing = [e for e in data["evidence"] if e["id"] in corr["evidence"] and e["outcome"] == "fail"]
    assert failing and all(e["rerun"].startswith("kreview rerun ") for e in failing)
    assert all(set(e) >= {"id", "tool", "outcome", "summary", "inputs", "config", "result", "rerun", "duration_s"}
               for e in data["evidence"])
    # nothing but JSON on stdout
    assert proc.stdout.lstrip().startswith("{") and proc.stdout.rstrip().endswith("}")


def test_rerun_command_reproduces_the_evidence(buggy_review) -> None:
    tmp, data, _ = buggy_review
    item = next(e for e in data["evidence"] if e["tool"] == "correctness" and e["outcome"] == "fail")
    args = item["rerun"].split(" ", 2)[2]  # drop "kreview rerun"
    import shlex

    proc = _run(["rerun", *shlex.split(args), "--evidence", item["id"], "--format", "json"], tmp)
    assert proc.returncode == 1, proc.stderr  # the failure is reproduced: exit 1 (git bisect run reads it)
    again = json.loads(proc.stdout)[0]
    assert again["id"] == item["id"]  # under the review's own id
    assert again["outcome"] == "fail"
    cmp_a = item["result"]["comparison"]["outputs"][0]
    cmp_b = again["result"]["comparison"]["outputs"][0]
    assert (cmp_a["mismatches"], cmp_a["max_abs_err"]) == (cmp_b["mismatches"], cmp_b["max_abs_err"])


def test_signoff_in_a_second_process_resumes_the_checkpoint(buggy_review) -> None:
    tmp, data, _ = buggy_review
    run_id = data["run_id"]
    edit = tmp / "edited.md"
    edit.write_text("# Edited review\nThe kernel uses the tanh GELU approximation.\n")
    # run as `kreview signoff` would be, then say which frameworks the process loaded: none (issue 34)
    probe = ("import atexit, sys\n"
             "atexit.register(lambda: sys.stderr.write('LOADED %s\\n' % sorted(m for m in ('torch', 'triton', 'jax') "
             "if m in sys.modules)))\n"
             "from reviewer.cli import main\nsys.argv = ['kreview', *sys.argv[1:]]\nmain()\n")
    env = {**os.environ, "KREVIEW_RUNS_DIR": str(tmp / "runs")}
    proc = subprocess.run([sys.executable, "-c", probe, "signoff", run_id, "--reject", "--by", "Ada", "--note",
                           "wrong GELU", "--edit", str(edit), "--format", "json"],
                          capture_output=True, text=True, env=env, cwd=tmp, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "LOADED []" in proc.stderr, proc.stderr[-2000:]
    final = json.loads(proc.stdout)
    assert final["status"] == "rejected"
    assert final["signoff"]["by"] == "Ada" and final["signoff"]["note"] == "wrong GELU" and final["signoff"]["edited"]
    assert final["draft"]["markdown"].startswith("# Edited review")
    assert final["evidence"] == data["evidence"]  # the evidence is not re-gathered
    shown = json.loads(_run(["show", run_id, "--format", "json"], tmp, check=True).stdout)
    assert shown["status"] == "rejected"
    twice = _run(["signoff", run_id, "--approve", "--by", "Ada"], tmp)
    assert twice.returncode == 2 and "not_awaiting_signoff" in twice.stderr


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    proc = _run(["review", str(tmp_path)], tmp_path)
    assert proc.returncode == 2 and "not_a_submission" in proc.stderr
    proc = _run(["signoff", "nope", "--approve", "--by", "x"], tmp_path)
    assert proc.returncode == 2 and "run_not_found" in proc.stderr
    proc = _run(["signoff", "nope", "--approve"], tmp_path)
    assert proc.returncode == 2 and "--by" in proc.stderr
    proc = _run(["review", str(EXAMPLES / "softmax_triton"), "--device", "tpu"], tmp_path)
    assert proc.returncode == 2


def test_bad_rubric_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "r.yaml"
    bad.write_text("name: x\ncriteria:\n  - id: builds\n    title: B\n    question: q\n    rule: majority\n")
    proc = _run(["review", str(EXAMPLES / "softmax_triton"), "--rubric", str(bad), "--only", "builds"], tmp_path)
    assert proc.returncode == 2 and "bad_rubric" in proc.stderr and "majority" in proc.stderr


def test_progress_off_a_terminal_is_one_plain_line_per_tool(buggy_review) -> None:
    import re

    _, _, proc = buggy_review  # stderr is a pipe here, as in CI logs
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("kreview: [")]
    assert lines[:2] == ["kreview: [1/2] builds started", lines[1]], proc.stderr
    assert re.fullmatch(r"kreview: \[1/2\] builds: 1 pass(, \d+ \w+)* \(\d+\.\ds\)", lines[1]), lines
    assert lines[2] == "kreview: [2/2] correctness started"
    assert re.fullmatch(r"kreview: \[2/2\] correctness: \d+ fail(, \d+ \w+)* \(\d+\.\ds\)", lines[3]), lines
    assert "\x1b[" not in proc.stderr  # no terminal control codes in a log


SCHEMAS = DATA / "schemas"


def test_show_as_sarif_junit_and_github_annotations(buggy_review) -> None:
    """The machine formats of a real rejected review validate against the SARIF 2.1.0 and JUnit schemas
    (tests/data/schemas, see its README), and say what failed where, with the rerun command."""
    import jsonschema
    import xmlschema

    tmp, data, _ = buggy_review
    proc = _run(["show", data["run_id"], "--format", "sarif"], tmp)
    assert proc.returncode == 0, proc.stderr
    sarif = json.loads(proc.stdout)
    jsonschema.Draft7Validator(json.loads((SCHEMAS / "sarif-2.1.0-subset.schema.json").read_text())).validate(sarif)
    results = {r["ruleId"]: r for r in sarif["runs"][0]["results"]}
    corr = results["criterion/correctness"]
    assert (corr["kind"], corr["level"]) == ("fail", "error")
    assert corr["properties"]["rerun"] and corr["properties"]["rerun"][0].split(": ", 1)[1].startswith("kreview rerun")
    uri = corr["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.endswith("gelu_triton_buggy/submission.py") or uri.endswith(".py")
    assert all(r["level"] == "none" for r in results.values() if r["kind"] != "fail")
    assert sarif["runs"][0]["properties"]["overall"] == "reject"

    proc = _run(["show", data["run_id"], "--format", "junit"], tmp)
    assert proc.returncode == 0, proc.stderr
    xmlschema.XMLSchema(SCHEMAS / "junit.xsd").validate(proc.stdout)
    import xml.etree.ElementTree as ET

    suite = ET.fromstring(proc.stdout).find("testsuite")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["correctness"].find("failure") is not None
    assert "kreview rerun" in cases["correctness"].find("system-out").text
    assert int(suite.get("failures")) == sum(c["verdict"] == "fail" for c in data["criteria"])
    unverified = [c["id"] for c in data["criteria"] if c["verdict"] == "unverified"]
    assert all(cases.get(u, cases.get(f"{u} (optional)")).find("skipped") is not None for u in unverified)

    env_proc = subprocess.run([*KREVIEW, "show", data["run_id"], "--format", "json"], capture_output=True, text=True,
                              env={**os.environ, "KREVIEW_RUNS_DIR": str(tmp / "runs"), "GITHUB_ACTIONS": "true"},
                              cwd=tmp, timeout=120)
    json.loads(env_proc.stdout)  # stdout stays pure JSON; the annotations go to stderr
    errors = [ln for ln in env_proc.stderr.splitlines() if ln.startswith("::error ")]
    assert any("file=" in ln and "Correctness" in ln for ln in errors), env_proc.stderr
    assert all("\n" not in ln for ln in errors)
