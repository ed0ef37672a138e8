"""The fixer without a sandbox: evidence stubs to candidates, the rerun's comparison, and fix_review with a
scripted verifier (a verified candidate is offered, a failed one dropped, a passing review gets nothing)."""

from __future__ import annotations

from pathlib import Path

from reviewer.core.config import ReviewConfig
from reviewer.fix import fix_review
from reviewer.fix.candidates import candidates
from reviewer.fix.verify import Verification, compare, rerun_tools
from tests.kernelfiles import KERNELS
from tests.unit.reviewer.fix.stubs import ev, review

NUMERICS_FAIL = [ev("correctness-1", "correctness", "correctness", "pass", case="nominal"),
                 ev("generality-1", "generality", "generality", "pass", check="search over sizes"),
                 ev("numerics-2", "numerics", "numerics", "fail", defect="large_magnitude",
                    check="inputs scaled by 1e3: overflow in exp/sum", case="numerics-large_magnitude")]
OOB = [ev("memcheck-1", "memcheck", "correctness", "fail", defect="oob_load", summary="loads past the end of x_ptr"),
       ev("correctness-1", "correctness", "correctness", "pass")]


def _sub(tmp_path: Path, rel: str) -> Path:
    (tmp_path / "submission.py").write_text((KERNELS / rel).read_text())
    return tmp_path


def test_evidence_names_the_class_and_the_source_holds_the_pattern() -> None:
    text = (KERNELS / "softmax/bad_no_max_subtraction.py").read_text()
    got = candidates(review(NUMERICS_FAIL), text)
    assert [(c.kind, c.criterion, c.targets) for c in got] == [("max_subtraction", "numerics", ("numerics-2",))]


def test_oob_evidence_gives_the_tail_mask_on_the_unmasked_load() -> None:
    text = (KERNELS / "memcheck/affine/oob_load_unmasked.py").read_text()
    (cand,) = candidates(review(OOB), text)
    assert cand.kind == "tail_mask" and cand.edits[0].text == ", mask=offs < n, other=0.0"


def test_an_integer_output_that_differs_proposes_the_store_cast() -> None:
    """An exact (integer or bool) output that differs, from a kernel computing in fp32: the uncast store of a
    float to a bool pointer truncates through int8."""
    stubs = [ev("correctness-1", "correctness", "correctness", "fail", defect="mismatch",
                summary="nominal, seed 1: output 0: 12648 of 16000 integer elements differ")]
    (cand,) = candidates(review(stubs), (KERNELS / "bool_output/bad_store_without_cast.py").read_text())
    assert (cand.kind, cand.criterion, cand.targets) == ("store_cast", "correctness", ("correctness-1",))
    assert candidates(review(stubs), (KERNELS / "bool_output/good_store_cast_to_bool.py").read_text()) == []


def test_no_candidate_when_evidence_names_no_known_class() -> None:
    stubs = [ev("integrity_runtime-1", "integrity_runtime", "correctness", "fail", defect="constant_output",
                summary="the output does not depend on the input")]
    assert candidates(review(stubs), (KERNELS / "memcheck/affine/oob_load_unmasked.py").read_text()) == []


def test_rerun_compare_requires_targets_to_pass_and_keeps_passes() -> None:
    before = review(NUMERICS_FAIL)
    (cand,) = candidates(before, (KERNELS / "softmax/bad_no_max_subtraction.py").read_text())
    tools = rerun_tools(before)
    assert tools == ["correctness", "generality", "numerics"]
    fixed = review([e.model_copy(update={"outcome": "pass"}) for e in NUMERICS_FAIL])
    ok, why, reruns = compare(before, fixed, cand, tools)
    assert ok and why == ""
    assert {(r.evidence, r.before, r.after) for r in reruns} >= {("numerics-2", "fail", "pass")}
    still = review(NUMERICS_FAIL)
    assert compare(before, still, cand, tools)[:2] == (False, "numerics-2 (numerics-large_magnitude) still fail")
    broke = review([NUMERICS_FAIL[0].model_copy(update={"outcome": "fail"}),
                    *[e.model_copy(update={"outcome": "pass"}) for e in NUMERICS_FAIL[1:]]])
    ok, why, _ = compare(before, broke, cand, tools)
    assert not ok and "correctness-1 (nominal) passed before and fails now" in why


def test_verified_candidate_is_offered_with_its_diff(tmp_path: Path) -> None:
    root = _sub(tmp_path, "softmax/bad_no_max_subtraction.py")
    r = review(NUMERICS_FAIL, root=str(root))
    report = fix_review(r, root, ReviewConfig(), verifier=lambda c: Verification(
        True, "", [], ["numerics"], (root / "submission.py").read_text().replace(
            "    num = tl.exp(x)\n", "    x = x - tl.max(x, axis=0)\n    num = tl.exp(x)\n"), 1.5))
    (fix,) = report.fixes
    assert (fix.kind, fix.criterion, fix.lines_changed) == ("max_subtraction", "numerics", 1)
    assert "+    x = x - tl.max(x, axis=0)\n" in fix.diff and fix.diff.startswith("--- a/submission.py")
    assert report.dropped == [] and (root / "submission.py").read_text() == (
        KERNELS / "softmax/bad_no_max_subtraction.py").read_text()


def test_candidate_whose_rerun_fails_is_dropped_with_the_reason(tmp_path: Path) -> None:
    root = _sub(tmp_path, "softmax/bad_no_max_subtraction.py")
    report = fix_review(review(NUMERICS_FAIL, root=str(root)), root, ReviewConfig(),
                        verifier=lambda c: Verification(False, "numerics-2 still fail", duration_s=2.0))
    assert report.fixes == []
    assert [(d.kind, d.why) for d in report.dropped] == [("max_subtraction", "numerics-2 still fail")]
    assert "no candidate verified" in report.note


def test_a_review_without_a_failure_gets_no_patch(tmp_path: Path) -> None:
    root = _sub(tmp_path, "softmax/good_softmax.py")
    passing = review([e.model_copy(update={"outcome": "pass"}) for e in NUMERICS_FAIL], root=str(root))

    def never(c):
        raise AssertionError("nothing to verify")

    report = fix_review(passing, root, ReviewConfig(), verifier=never)
    assert report.fixes == [] and report.dropped == [] and report.note == "no criterion failed: nothing to fix"


def test_a_search_item_is_matched_by_check_name_when_its_case_changes() -> None:
    failing = [ev("generality-1", "generality", "generality", "fail", defect="mismatch", case="generality-layouts",
                  check="generality search over layouts (smallest failing configuration: transposed)",
                  summary="layouts: transposed inputs fails"),
               ev("correctness-1", "correctness", "correctness", "pass")]
    before = review(failing)
    (cand,) = [c for c in candidates(before, (KERNELS / "softmax/bad_contiguity.py").read_text())
               if c.kind == "contiguous"]
    after = review([ev("generality-1", "generality", "generality", "pass", case="probes-nominal",
                       check="generality search over layouts"), failing[1]])
    ok, why, reruns = compare(before, after, cand, rerun_tools(before))
    assert ok, why
    assert ("generality-1", "fail", "pass") in {(r.evidence, r.before, r.after) for r in reruns}


def test_items_sharing_tool_check_and_case_are_matched_in_order() -> None:
    two = [ev("memcheck-1", "memcheck", "correctness", "fail", defect="int32_overflow", case="memcheck-0-0",
              check="sanitizer", summary="int32 mul wrapped"),
           ev("memcheck-2", "memcheck", "correctness", "fail", defect="oob_load", case="memcheck-0-0",
              check="sanitizer", summary="loads before the start of x_ptr")]
    before = review(two)
    (cand,) = candidates(before, (KERNELS / "memcheck/permute/int32_overflow.py").read_text())
    assert cand.kind == "int64_offsets"
    after = review([e.model_copy(update={"outcome": "pass", "defect": None}) for e in two])
    ok, why, reruns = compare(before, after, cand, rerun_tools(before))
    assert ok, why
    assert [(r.evidence, r.after) for r in reruns] == [("memcheck-1", "pass"), ("memcheck-2", "pass")]


def test_the_check_description_does_not_propose_a_class() -> None:
    oob = [ev("memcheck-1", "memcheck", "correctness", "fail", defect="oob_load", summary="loads past the end",
              check="run under the Triton CPU sanitizer (bounds, device_assert, int32 index wrap, races)")]
    kinds = [c.kind for c in candidates(review(oob), (KERNELS / "memcheck/affine/oob_load_unmasked.py").read_text())]
    assert kinds == ["tail_mask"]


def test_two_defects_of_one_case_fixed_leave_one_passing_item() -> None:
    two = [ev("memcheck-1", "memcheck", "correctness", "fail", defect="int32_overflow", case="memcheck-0-0",
              check="sanitizer", summary="int32 mul wrapped"),
           ev("memcheck-2", "memcheck", "correctness", "fail", defect="oob_load", case="memcheck-0-0",
              check="sanitizer", summary="loads before the start of x_ptr")]
    before = review(two)
    (cand,) = candidates(before, (KERNELS / "memcheck/permute/int32_overflow.py").read_text())
    after = review([two[0].model_copy(update={"outcome": "pass", "defect": None})])
    ok, why, reruns = compare(before, after, cand, rerun_tools(before))
    assert ok, why
    assert [(r.evidence, r.after) for r in reruns] == [("memcheck-1", "pass"), ("memcheck-2", "pass")]
    still = review([two[0].model_copy(update={"defect": "oob_load"})])
    assert not compare(before, still, cand, rerun_tools(before))[0]


def test_a_check_not_assessed_before_is_rerun_and_must_not_fail() -> None:
    items = [ev("correctness-1", "correctness", "correctness", "fail", defect="oob_load", summary="loads past the end"),
             ev("generality-1", "generality", "generality", "unverified", defect="not_assessed")]
    before = review(items)
    assert "generality" in rerun_tools(before)
    (cand,) = candidates(before, (KERNELS / "memcheck/affine/oob_load_unmasked.py").read_text())
    fixed = review([items[0].model_copy(update={"outcome": "pass"}),
                    ev("generality-2", "generality", "generality", "fail", defect="mismatch", case="sizes")])
    ok, why, _ = compare(before, fixed, cand, rerun_tools(before))
    assert not ok and "a new check fails" in why
