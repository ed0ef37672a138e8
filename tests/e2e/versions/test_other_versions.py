"""The reviewer with a Triton and a JAX other than the tested pins (pyproject's ranges allow them).

CI installs them beside the tested ones, ``pip install --target DIR --no-deps triton==3.4.0 jax==0.9.2
jaxlib==0.9.2``, and runs this file with ``KREVIEW_OTHER_VERSIONS=DIR`` (.ci/run); without it the tests
skip. With another version the review must still run end to end, decide every check that does not
rely on a library's internals, and report the ones that do as unverified naming the version: never a
kernel failure from the reviewer's environment. The Triton sanitizer (memcheck) supports every minor
release from 3.4 to 3.8: with one of them it decides, known-bad kernels included; outside that range
its evidence is unverified, naming the version. CI runs the oldest (3.4) here and the newest (3.8,
the pin) in the main suite; this file also reruns the sanitizer's own unit tests with the other Triton.
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
from tests.kernelfiles import KERNELS, expectations, materialize

OTHER = os.environ.get("KREVIEW_OTHER_VERSIONS")
pytestmark = pytest.mark.skipif(not OTHER, reason="set KREVIEW_OTHER_VERSIONS to a folder holding another Triton "
                                                   "and JAX (pip install --target DIR --no-deps ...), as CI does")


def _installed(folder: Path, dist: str) -> str:
    found = [m.group(1) for p in folder.glob(f"{dist}-*.dist-info") if (m := re.match(rf"{dist}-(.+)\.dist-info", p.name))]
    assert found, f"{dist} is not installed in {folder}"
    return found[0]


def _env() -> dict[str, str]:
    # the other versions first; whatever PYTHONPATH already named (a source checkout) after them
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (OTHER, os.environ.get("PYTHONPATH")) if p)}


def _review(sub: Path, tmp_path: Path, *only: str) -> dict:
    args = [a for tool in only for a in ("--only", tool)]
    done = subprocess.run([sys.executable, "-m", "reviewer", "review", str(sub), "--format", "json", *args],
                          cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _memcheck_supports(version: str) -> bool:
    from tools.engine.harness.sanitizer.compat import tested

    return tested(version)


def _verdicts(review: dict) -> dict[str, str]:
    return {c["id"]: c["verdict"] for c in review["criteria"]}


def test_a_triton_review_with_another_triton_decides_what_it_can_and_names_the_rest(tmp_path: Path) -> None:
    version = _installed(Path(OTHER), "triton")
    review = _review(ROOT / "examples" / "softmax_triton", tmp_path)
    assert review["environment"]["versions"]["triton"] == version != "3.8.0"
    verdicts = _verdicts(review)
    assert "fail" not in verdicts.values() and review["overall"] != "reject"
    assert verdicts["builds"] == verdicts["numerics"] == verdicts["integrity"] == verdicts["resources"] == "pass"
    correctness = [e for e in review["evidence"] if e["tool"] == "correctness"]
    assert correctness and all(e["outcome"] == "pass" for e in correctness)
    memcheck = [e for e in review["evidence"] if e["tool"] == "memcheck"]
    if _memcheck_supports(version):
        # the sanitizer ran (nominal and boundary cases) and found nothing in this correct kernel
        assert memcheck and all(e["outcome"] == "pass" for e in memcheck), [e["summary"] for e in memcheck]
        assert {c for e in memcheck for c in e["criteria"]} == {"correctness", "generality"}
        assert verdicts["correctness"] == "pass"
    else:
        assert memcheck and all(e["outcome"] == "unverified" and version in (e["reason"] or "") for e in memcheck)
        assert verdicts["correctness"] == "unverified"


def test_memcheck_with_another_triton_fails_a_known_bad_kernel_for_its_defect(tmp_path: Path) -> None:
    """An overrun only boundary shapes show (tests/kernels/memcheck/affine_pow2/tail_mask_missing.py)."""
    version = _installed(Path(OTHER), "triton")
    path = KERNELS / "memcheck" / "affine_pow2" / "tail_mask_missing.py"
    review = _review(materialize(path, tmp_path / "sub"), tmp_path, "builds", "correctness", "memcheck")
    memcheck = [e for e in review["evidence"] if e["tool"] == "memcheck"]
    if not _memcheck_supports(version):
        assert memcheck and all(e["outcome"] == "unverified" for e in memcheck)
        return
    assert {e["defect"] for e in memcheck if e["outcome"] == "fail"} == {"oob_load", "oob_store"}
    assert {k: _verdicts(review)[k] for k in expectations(path)} == expectations(path)


def test_the_sanitizer_unit_tests_pass_with_another_triton(tmp_path: Path) -> None:
    """The hooks in-process on every defect class (tests/kernels/memcheck/unit_kernels.py) and the launch
    entry adapter, with the other Triton imported: seconds, and they name what moved."""
    version = _installed(Path(OTHER), "triton")
    if not _memcheck_supports(version):
        pytest.skip(f"triton {version} is outside the sanitizer's tested range")
    seen = subprocess.run([sys.executable, "-c", "import triton; print(triton.__version__)"], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=120, check=True)
    assert seen.stdout.strip() == version
    tests = ["tests/unit/tools/engine/harness/instruments/test_triton_sanitizer.py",
             "tests/unit/tools/engine/harness/test_interpreter_launch.py"]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", *tests],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-4000:]


def test_a_pallas_review_with_another_jax_decides_what_it_can_and_names_the_rest(tmp_path: Path) -> None:
    version = _installed(Path(OTHER), "jax")
    review = _review(ROOT / "examples" / "rowsum_pallas", tmp_path)
    assert review["environment"]["versions"]["jax"] == version != "0.10.2"
    verdicts = _verdicts(review)
    assert "fail" not in verdicts.values() and review["overall"] != "reject"
    assert verdicts["builds"] == verdicts["numerics"] == verdicts["integrity"] == "pass"
    # on this CPU machine only the GPU benchmark may be unverified for another reason (no CUDA device)
    untested = [e for e in review["evidence"] if e["outcome"] == "unverified" and e["tool"] != "benchmark"]
    assert {e["tool"] for e in untested} >= {"sanitizers", "pallas_padding"}
    assert all(f"jax {version}" in (e["reason"] or e["summary"]) for e in untested)
