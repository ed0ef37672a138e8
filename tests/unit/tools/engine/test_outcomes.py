"""Hang vs slowness with a measured estimate, what counts as a deliberate rejection, and environment
failures (no GPU here) that are unverified with a remedy."""

from __future__ import annotations

import pytest

from tools.engine.outcomes import classify_failure, deliberate_rejection
from tools.engine.sandbox import CallResult
from tools.engine.sandbox.worker import ChildCrash

SOURCE = '''class ModelNew:
    def forward(self, x):
        if x.numel() % 256:
            raise ValueError("needs a multiple of 256")
        assert x.is_contiguous(), "contiguous only"
        return helper(x)
'''


def _timeout() -> CallResult:
    return CallResult(answered=False, crash=ChildCrash(kind="timeout", message="no answer within 10s"))


def test_timeout_with_an_estimate() -> None:
    fast = classify_failure(_timeout(), interpreted=True, input_numel=10**7, on_cpu=True, stage="call",
                            expected_s=0.2, timeout_s=10.0)
    assert (fast.outcome, fast.defect) == ("fail", "hang") and "predicts about 0.2s" in fast.reason
    slow = classify_failure(_timeout(), interpreted=True, input_numel=10, on_cpu=True, stage="call",
                            expected_s=3.0, timeout_s=10.0)
    assert (slow.outcome, slow.defect) == ("unverified", "timeout")


def test_timeout_without_an_estimate_keeps_the_size_rule() -> None:
    big = classify_failure(_timeout(), interpreted=True, input_numel=10**7, on_cpu=True, stage="call")
    small = classify_failure(_timeout(), interpreted=True, input_numel=10, on_cpu=True, stage="call")
    assert big.outcome == "unverified" and small.outcome == "fail"


def _error(path: str, line: int, etype: str = "ValueError", chained: bool = False) -> CallResult:
    tb = (f'Traceback (most recent call last):\n  File "/x/tools/harness/ops.py", line 10, in run\n'
          f'  File "{path}", line {line}, in forward\n{etype}: boom\n')
    if chained:
        tb = "RuntimeError: inner\n\nThe above exception was the direct cause of the following exception:\n\n" + tb
    return CallResult(answered=True, ok=False, error={"type": etype, "message": "boom", "traceback": tb})


def test_deliberate_rejection_needs_a_raise_or_assert_in_the_submission_itself() -> None:
    sub = "/sandbox/src/submission.py"
    assert deliberate_rejection(_error(sub, 4), "submission.py", SOURCE).startswith("submission.py:4: ValueError")
    assert deliberate_rejection(_error(sub, 5, "AssertionError"), "submission.py", SOURCE) is not None
    assert deliberate_rejection(_error(sub, 6), "submission.py", SOURCE) is None  # not a raise line
    assert deliberate_rejection(_error("/site-packages/triton/x.py", 4), "submission.py", SOURCE) is None
    assert deliberate_rejection(_error(sub, 4, chained=True), "submission.py", SOURCE) is None
    crash = CallResult(answered=False, crash=ChildCrash(kind="signal", message="SIGSEGV"))
    assert deliberate_rejection(crash, "submission.py", SOURCE) is None


@pytest.mark.parametrize("message", [
    "0 active drivers ([]). There should only be one.",
    "fatal error: c10/cuda/impl/cuda_cmake_macros.h: No such file or directory",
    "kernel.warmup() needs a CUDA device, or Triton's compiler and ptxas for sm_90, and they are not available here",
])
def test_environment_failures_are_unverified_with_a_remedy(message: str) -> None:
    call = CallResult(answered=True, ok=False, error={"type": "RuntimeError", "message": message, "traceback": ""})
    c = classify_failure(call, interpreted=True, input_numel=10, on_cpu=True, stage="the call")
    assert (c.outcome, c.defect) == ("unverified", "needs_gpu")
    assert "virtual device" in c.reason and "--device cuda" in c.reason
    on_gpu = classify_failure(call, interpreted=False, input_numel=10, on_cpu=False, stage="the call")
    assert on_gpu.outcome == "fail"


@pytest.mark.parametrize("message", ["NotImplementedError('inline_asm not supported in interpreter mode')",
                                     "NotImplementedError('extern_elementwise not supported in interpreter mode')"])
def test_what_the_interpreter_cannot_run_is_unverified(message: str) -> None:
    call = CallResult(answered=True, ok=False, error={"type": "InterpreterError", "message": message, "traceback": ""})
    c = classify_failure(call, interpreted=True, input_numel=10, on_cpu=True, stage="the call")
    assert (c.outcome, c.defect) == ("unverified", "interpreter_limit") and "interpreter" in c.reason
    compiled = classify_failure(call, interpreted=False, input_numel=10, on_cpu=False, stage="the call")
    assert compiled.outcome == "fail"
