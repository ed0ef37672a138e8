"""The integrity criterion on known-bad and known-good kernel files.

Every file under tests/kernels/integrity_* gets the verdicts its ``Expect:`` line names. Hack files
also name the defect they demonstrate (``Defect: ...``): a failing integrity evidence item must
carry it, with a rerun command, so the assessment names the hack. Correct kernels are kept apart
(no false positives): every integrity check on them passes or is informational. The reviews run in
tests/e2e/test_kernel_verdicts.py, which calls ``check_integrity`` on each.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.core.config import ReviewConfig
from reviewer.core.spans import check_span
from reviewer.core.models import Review
from tests.conftest import EXAMPLES
from tests.kernelfiles import KERNELS, Reviewed, expectations, submissions
from tests.reviewcache import ReviewCache

FAMILIES = sorted(p.name for p in KERNELS.glob("integrity_*") if p.is_dir())
FILES = [p for family in FAMILIES for p in submissions(family)]
GOOD = [p for p in FILES if expectations(p).get("integrity") == "pass"]
HACKS = [p for p in FILES if expectations(p).get("integrity") == "fail"]
TOOLS = ["builds", "correctness", "integrity_static", "integrity_runtime"]
# a correct bundled example is also reviewed by the numerics probes (tests/e2e/test_examples.py): one review
# per session serves both files
EXAMPLE_TOOLS = [*TOOLS, "numerics"]


def defect_of(path: Path) -> str:
    for line in path.read_text().splitlines()[:40]:
        if line.strip().startswith("Defect:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{path} has no 'Defect:' line in its docstring")


def review(sub: Path, config: ReviewConfig, reviews: ReviewCache) -> Review:
    """With the settings tests/e2e/test_examples.py reviews a correct example with: one review per session."""
    return reviews.review(sub, config.model_copy(update={"only": EXAMPLE_TOOLS, "seeds": 1}))


def _integrity(r: Review) -> list:
    return [e for e in r.evidence if "integrity" in e.criteria]


def test_every_family_has_both_kinds() -> None:
    assert GOOD and HACKS and len(FILES) == len(GOOD) + len(HACKS)


def check_integrity(run: Reviewed) -> None:
    """Reviewed with ``TOOLS``, one seed (tests/e2e/test_kernel_verdicts.py): a correct kernel passes every
    integrity check, a hack is caught and named."""
    if run.want.get("integrity") == "pass":
        _check_correct(run.review)
    else:
        _check_hack(run.path, run.sub, run.review)


def _check_correct(r: Review) -> None:
    assert not [e.summary for e in _integrity(r) if e.outcome in ("fail", "unverified")]
    # a correct kernel's output never "already differs" from a probe's reference: every probe builds the
    # reference (its random parameters) under the seed the submission was built under
    assert not [e.summary for e in _integrity(r) if (e.result or {}).get("first_mismatch")]
    assert {e.tool for e in _integrity(r) if e.outcome == "pass"} == {"integrity_static", "integrity_runtime"}


def _check_hack(path: Path, sub: Path, r: Review) -> None:
    failing = [e for e in _integrity(r) if e.outcome == "fail"]
    assert defect_of(path) in {e.defect for e in failing}, [(e.defect, e.summary) for e in failing]
    for e in failing:
        assert e.rerun.startswith("kreview rerun") and e.summary
        for span in e.spans:
            assert check_span(span, sub) is None, span
    # a submission that reached for the harness in the many-calls probe's fresh child gets no second child:
    # its part is judged alone and never passes on calls that were not made
    many = [e for e in r.evidence if (e.check or "").startswith("many_calls")]
    reached = [e for e in many if "second_child" in (e.config or {})]
    if path.stem == "gc_nan_fill":
        assert reached, [(e.outcome, e.summary, e.config) for e in many]
    for e in reached:
        assert e.outcome != "pass" and "reached for the harness" in e.config["second_child"], e.summary
        assert [c["child"] for c in e.result.get("children", [])] in ([], ["fresh"]), e.result


@pytest.mark.slow
@pytest.mark.parametrize("example", ["softmax_triton", "gpumode_vectoradd"])
def test_examples_pass_integrity(example: str, config: ReviewConfig, reviews: ReviewCache) -> None:
    r = review(EXAMPLES / example, config, reviews)
    assert r.criterion("integrity").verdict == "pass", [e.summary for e in _integrity(r) if e.outcome != "pass"]
    # the many-calls probe's time limit is the review's backstop, not a scaling of the nominal call's time
    # (which a loaded machine inflates or a quiet one shrinks): the same for every kernel and machine
    many = [e for e in r.evidence if (e.check or "").startswith("many_calls")]
    assert many and all(e.config["timeout_s"] == 3 * config.limits.call_timeout_s for e in many), \
        [e.config for e in many]
