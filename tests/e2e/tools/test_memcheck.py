"""The memcheck tool end to end (sandboxed children): every known-bad file under tests/kernels/memcheck
gets its verdicts and defect codes with a quoted source line and a rerun; every known-good file gets
no memcheck finding (both reviewed by tests/e2e/test_kernel_verdicts.py, which calls ``check_memcheck``
on each); probes reproduce; a moved interpreter internal makes
the evidence unverified, never a pass."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from reviewer.core.config import ReviewConfig
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from reviewer.core.models import Evidence, Review
from tests.kernelfiles import KERNELS, Reviewed, materialize
from tests.reviewcache import ReviewCache
from tools.engine.runsetup import DeviceInfo
from tools.engine.harness.case import Case
from tools.memcheck import MemcheckTool
from tools.memcheck.evidence import emit_case
from tools.memcheck.sanitized_runs import CaseRun
from tools.engine.sandbox import CallResult, ChildCrash

CPU = DeviceInfo(kind="cpu", name="cpu")


def defects(path: Path) -> set[str]:
    for line in path.read_text().splitlines()[:40]:
        if line.strip().startswith("Defects:"):
            return {d.strip() for d in line.split(":", 1)[1].split(",")}
    raise AssertionError(f"{path} names no 'Defects:'")


def review(path: Path, tmp_path: Path, config: ReviewConfig, reviews: ReviewCache) -> Review:
    """With the memcheck corpus's settings (tests/e2e/test_kernel_verdicts.py): one review per session."""
    sub = materialize(path, tmp_path / "sub")
    return reviews.review(sub, config.model_copy(update={"only": ["builds", "correctness", "memcheck"]}))


def memcheck(review_: Review) -> list[Evidence]:
    return [e for e in review_.evidence if e.tool == "memcheck"]


def check_memcheck(run: Reviewed) -> None:
    """Reviewed with builds, correctness, memcheck (tests/e2e/test_kernel_verdicts.py): a known-bad file
    gets its defect codes, a correct one (``good_*``) no memcheck finding."""
    if run.path.stem.startswith("good_"):
        _check_correct_kernel(run.review)
        return
    path, r = run.path, run.review
    failing = [e for e in memcheck(r) if e.outcome == "fail"]
    assert {e.defect for e in failing} == defects(path), [e.summary for e in failing]
    for e in failing:
        assert e.spans and e.spans[0].file == "submission.py"
        quoted = e.spans[0].quote
        assert quoted in (run.sub / "submission.py").read_text()
        assert ("tl.load" in quoted or "tl.store" in quoted or "tl.device_assert" in quoted), quoted
        assert "--tool memcheck --case" in e.rerun
        assert e.result["violation"]["programs"] >= 1 and e.inputs["case"]["id"]


def _check_correct_kernel(r: Review) -> None:
    items = memcheck(r)
    assert [e.summary for e in items if e.outcome != "pass"] == []
    assert {c for e in items for c in e.criteria} == {"correctness", "generality"}
    assert all(e.result["counts"]["lanes_checked"] > 0 for e in items)


def _probe(sub_dir: Path, case: Case, tmp_path: Path, config: ReviewConfig) -> list[Evidence]:
    sub = load_submission(sub_dir)
    ctx = make_tool_context(sub, config, tmp_path / "probe-run", 1234, CPU)
    try:
        MemcheckTool().rerun_case(ctx, case)
    finally:
        ctx.session.close()
    return ctx.evidence


def test_probe_reproduces_a_boundary_finding(tmp_path: Path, config: ReviewConfig, reviews: ReviewCache) -> None:
    path = KERNELS / "memcheck" / "affine_pow2" / "tail_mask_missing.py"
    r = review(path, tmp_path, config, reviews)
    fail = next(e for e in memcheck(r) if e.outcome == "fail")
    assert fail.criteria == ["generality"] and "not a multiple of BLOCK=256" in fail.summary
    spec = shlex.split(fail.rerun)[shlex.split(fail.rerun).index("--case") + 1]
    again = _probe(tmp_path / "sub", Case.model_validate(json.loads(spec)), tmp_path, config)
    same = [e for e in again if e.outcome == "fail"]
    assert {(e.defect, e.result["violation"]["element_min"]) for e in same} == \
        {(e.defect, e.result["violation"]["element_min"]) for e in memcheck(r) if e.outcome == "fail"}
    assert all(e.criteria == ["generality"] for e in same)


def test_incompatible_triton_is_unverified_not_pass(tmp_path: Path, config: ReviewConfig,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from tools.engine.harness.sanitizer import compat

    monkeypatch.setattr(compat, "TESTED_TRITON", ("0.0",))
    sub_dir = materialize(KERNELS / "memcheck" / "affine" / "good_masked.py", tmp_path / "sub")
    (e,) = _probe(sub_dir, Case(id="x", seed=1), tmp_path, config)
    assert (e.outcome, e.defect) == ("unverified", "sanitizer_incompatible")
    import triton

    short = ".".join(triton.__version__.split(".")[:2])
    assert e.reason.startswith(f"sanitizer incompatible with triton {short}") and e.rerun


def test_child_side_incompatibility_and_crashes_map_to_outcomes(tmp_path: Path, config: ReviewConfig) -> None:
    sub_dir = materialize(KERNELS / "memcheck" / "affine" / "good_masked.py", tmp_path / "sub")
    ctx = make_tool_context(load_submission(sub_dir), config, tmp_path / "run", 1, CPU)
    case = Case(id="memcheck-b0", seed=1, params={"rows": 7, "cols": 299}, label="boundary odd sizes")
    err = {"type": "SanitizerIncompatible", "message": "sanitizer incompatible with triton 3.9 (3.9.0): x", "traceback": ""}
    emit_case(ctx, MemcheckTool(), CaseRun(case=case, nominal=False, status="incompatible",
                                           call=CallResult(answered=True, ok=False, error=err)))
    crash = ChildCrash(kind="signal", message="child killed by SIGSEGV", signal="SIGSEGV")
    emit_case(ctx, MemcheckTool(), CaseRun(case=case, nominal=True, status="call_failed", numel=10,
                                           call=CallResult(answered=False, crash=crash)))
    own = {"type": "ValueError", "message": "n must be even",
           "traceback": f'  File "{sub_dir}/submission.py", line 20, in forward\nValueError: n must be even'}
    emit_case(ctx, MemcheckTool(), CaseRun(case=case, nominal=False, status="call_failed",
                                           call=CallResult(answered=True, ok=False, error=own)))
    tampered = {"installed": True, "launches": 1, "loads": 1, "tampered": ["InterpreterBuilder.create_masked_load"]}
    emit_case(ctx, MemcheckTool(), CaseRun(case=case, nominal=True, status="checked", sanitizer=tampered,
                                           launches={"total": 1}, call=CallResult(answered=True, ok=True)))
    inc, crashed, rejected, hooked = ctx.evidence
    assert (hooked.outcome, hooked.defect) == ("unverified", "sanitizer_tampered")
    assert (inc.outcome, inc.defect, inc.criteria) == ("unverified", "sanitizer_incompatible", ["generality"])
    assert (crashed.outcome, crashed.defect, crashed.criteria) == ("fail", "crash", ["correctness"])
    assert "sanitizer" in crashed.summary
    assert rejected.outcome == "info" and "rejects this input itself" in rejected.summary
    ctx.session.close()


def test_not_applicable_without_triton(tmp_path: Path, config: ReviewConfig) -> None:
    sub_dir = materialize(KERNELS / "spine" / "wrong_result.py", tmp_path / "sub")
    ctx = make_tool_context(load_submission(sub_dir), config, tmp_path / "run", 1, CPU)
    assert "reads triton kernels" in (MemcheckTool().not_applicable(ctx) or "")
    ctx.session.close()
