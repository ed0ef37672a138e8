"""The reviewer with a Triton and a JAX other than the tested pins (pyproject's ranges allow them).

CI installs them beside the tested ones, ``pip install --target DIR --no-deps triton==3.7.1 jax==0.9.2
jaxlib==0.9.2``, and runs this file with ``KREVIEW_OTHER_VERSIONS=DIR`` (.ci/run); without it the tests
skip. With another version the review must still run end to end, decide every check that does not
rely on a library's internals, and report the ones that do as unverified naming the version: never a
kernel failure from the reviewer's environment.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

OTHER = os.environ.get("KREVIEW_OTHER_VERSIONS")
pytestmark = pytest.mark.skipif(not OTHER, reason="set KREVIEW_OTHER_VERSIONS to a folder holding another Triton "
                                                   "and JAX (pip install --target DIR --no-deps ...), as CI does")


def _installed(folder: Path, dist: str) -> str:
    found = [m.group(1) for p in folder.glob(f"{dist}-*.dist-info") if (m := re.match(rf"{dist}-(.+)\.dist-info", p.name))]
    assert found, f"{dist} is not installed in {folder}"
    return found[0]


def _review(example: str, tmp_path: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(OTHER)}
    kreview = Path(sys.executable).with_name("kreview")
    done = subprocess.run([str(kreview), "review", str(ROOT / "examples" / example), "--format", "json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _verdicts(review: dict) -> dict[str, str]:
    return {c["id"]: c["verdict"] for c in review["criteria"]}


def test_a_triton_review_with_another_triton_decides_what_it_can_and_names_the_rest(tmp_path: Path) -> None:
    version = _installed(Path(OTHER), "triton")
    review = _review("softmax_triton", tmp_path)
    assert review["environment"]["versions"]["triton"] == version != "3.8.0"
    verdicts = _verdicts(review)
    assert "fail" not in verdicts.values() and review["overall"] != "reject"
    assert verdicts["builds"] == verdicts["numerics"] == verdicts["integrity"] == verdicts["resources"] == "pass"
    correctness = [e for e in review["evidence"] if e["tool"] == "correctness"]
    assert correctness and all(e["outcome"] == "pass" for e in correctness)
    memcheck = [e for e in review["evidence"] if e["tool"] == "memcheck"]
    assert memcheck and all(e["outcome"] == "unverified" and version in (e["reason"] or "") for e in memcheck)
    assert verdicts["correctness"] == "unverified"


def test_a_pallas_review_with_another_jax_decides_what_it_can_and_names_the_rest(tmp_path: Path) -> None:
    version = _installed(Path(OTHER), "jax")
    review = _review("rowsum_pallas", tmp_path)
    assert review["environment"]["versions"]["jax"] == version != "0.10.2"
    verdicts = _verdicts(review)
    assert "fail" not in verdicts.values() and review["overall"] != "reject"
    assert verdicts["builds"] == verdicts["numerics"] == verdicts["integrity"] == "pass"
    # on this CPU machine only the GPU benchmark may be unverified for another reason (no CUDA device)
    untested = [e for e in review["evidence"] if e["outcome"] == "unverified" and e["tool"] != "benchmark"]
    assert {e["tool"] for e in untested} >= {"sanitizers", "pallas_padding"}
    assert all(f"jax {version}" in (e["reason"] or e["summary"]) for e in untested)
