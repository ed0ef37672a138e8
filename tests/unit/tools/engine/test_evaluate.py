"""evaluate(): a call that outruns its scaled timeout decides nothing until the same call, in a fresh
child, has also outrun the review's backstop (--timeout): a machine that got busier since the nominal
call was timed must not turn a correct kernel into a hang or a cut configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from reviewer.core.config import ReviewConfig
from reviewer.core.limits import SandboxLimits
from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.conftest import EXAMPLES
from tools.engine.evaluate import evaluate
from tools.engine.harness.case import Case
from tools.engine.sandbox.worker import CallResult, ChildCrash
from tools.engine.session import ReferenceRun, SubmissionRun

OUT = torch.linspace(0, 1, 16)


class _Session:
    """Answers the reference at once; the submission times out on its first ``slow`` calls."""

    def __init__(self, slow: int) -> None:
        self.slow, self.timeouts = slow, []

    def reference(self, case: Case) -> ReferenceRun:
        return ReferenceRun(case=case, call=CallResult(answered=True, ok=True), outputs=[OUT.clone()],
                            meta={"inputs": [{"shape": [16]}]})

    def run_submission(self, case: Case, ref: ReferenceRun, *, timeout: float | None = None, **_: Any) -> SubmissionRun:
        self.timeouts.append(timeout)
        if len(self.timeouts) <= self.slow:
            crash = ChildCrash(kind="timeout", message=f"no answer within {timeout}s")
            return SubmissionRun(case=case, call=CallResult(answered=False, crash=crash))
        return SubmissionRun(case=case, call=CallResult(answered=True, ok=True), outputs=[OUT.clone()])

    def close(self) -> None: ...


def _ctx(tmp_path: Path, session: _Session):
    config = ReviewConfig(seed=1, limits=SandboxLimits(call_timeout_s=90.0))
    ctx = make_tool_context(load_submission(EXAMPLES / "softmax_triton"), config, tmp_path, 1, detect_device("cpu"))
    ctx.session.close()
    ctx.session = session  # type: ignore[assignment]
    return ctx


def test_a_slow_call_is_retried_under_the_backstop_and_then_judged(tmp_path: Path) -> None:
    session = _Session(slow=1)
    ev = evaluate(_ctx(tmp_path, session), Case(id="g", seed=1), timeout=5.0, expected_s=0.1)
    assert session.timeouts == [5.0, 90.0]
    assert ev.classified is None and ev.judgement is not None and ev.judgement.ok


def test_a_call_that_also_outruns_the_backstop_is_a_hang(tmp_path: Path) -> None:
    session = _Session(slow=2)
    ev = evaluate(_ctx(tmp_path, session), Case(id="g", seed=1), timeout=5.0, expected_s=0.1)
    assert session.timeouts == [5.0, 90.0]
    assert ev.classified is not None and (ev.classified.outcome, ev.classified.defect) == ("fail", "hang")
    assert "90s" in ev.classified.reason


def test_a_call_already_at_the_backstop_is_not_run_twice(tmp_path: Path) -> None:
    session = _Session(slow=1)
    ev = evaluate(_ctx(tmp_path, session), Case(id="g", seed=1), timeout=90.0, expected_s=0.1)
    assert session.timeouts == [90.0]
    assert ev.classified is not None and ev.classified.defect == "hang"
