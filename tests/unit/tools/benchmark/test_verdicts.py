"""The benchmark's verdict logic on measurements in the form the benchmark child records them
(``event_s``/``host_s`` per repetition for each role), judged through the default rubric: being
slower, a claim not reproduced and work outside the timed stream are concerns, never a reject."""

from __future__ import annotations

import numpy as np

from reviewer.core.models import Evidence
from reviewer.core.submission import Claims
from reviewer.rubric import judge, load_rubric, overall
from tools.benchmark.verdicts import judge_timings
from tools.engine.registry import declared_criteria


def _timing(median_s: float, n: int = 200, *, host_extra_s: float = 8e-6, seed: int = 0) -> dict:
    """One role's answer of the benchmark child: CUDA-event times and host wall times."""
    rng = np.random.default_rng(seed)
    event = median_s * np.exp(0.01 * rng.standard_normal(n))
    return {"event_s": event.tolist(), "host_s": (event + host_extra_s).tolist(), "stop": "converged"}


def _evidence(timings: dict, claims: Claims) -> list[Evidence]:
    req = [Evidence(id=f"{t}-1", tool=t, criteria=[c], outcome="pass", summary="ok")
           for t, c in (("builds", "builds"), ("correctness", "correctness"), ("generality", "generality"),
                        ("numerics", "numerics"), ("integrity_runtime", "integrity"))]
    bench = [Evidence(id=f"benchmark-{i}", tool="benchmark", criteria=["performance"], outcome=j.outcome,
                      defect=j.defect, summary=j.summary, check=j.check, result=j.result)
             for i, j in enumerate(judge_timings(timings, claims, seed=11), 1)]
    return req + bench


def _judged(timings: dict, claims: Claims) -> tuple[list[Evidence], str, str]:
    items = _evidence(timings, claims)
    crit = judge(load_rubric(tools=declared_criteria()), items, {})
    perf = next(c for c in crit if c.id == "performance")
    return [e for e in items if e.tool == "benchmark"], perf.verdict, overall(crit)[0]


def test_slower_than_the_reference_is_a_concern() -> None:
    items, perf, verdict = _judged({"submission/eager": _timing(30e-6, seed=1),
                                    "reference/eager": _timing(20e-6, seed=2)}, Claims())
    (speed,) = items
    assert (speed.outcome, speed.defect) == ("pass", "slower_than_reference")
    assert 0.6 < speed.result["speedup"] < 0.7 and speed.result["ci95"][1] < 1.0
    assert (perf, verdict) == ("pass", "accept")


def test_a_claim_not_reproduced_is_a_concern() -> None:
    items, perf, verdict = _judged({"submission/eager": _timing(20e-6, seed=1),
                                    "reference/eager": _timing(30e-6, seed=2)}, Claims(speedup=3.0, time_us=10.0))
    assert [(e.check, e.outcome, e.defect) for e in items] == [
        ("speedup = median(reference) / median(submission), bootstrap CI", "pass", "claim_not_reproduced"),
        ("claimed time", "pass", "claim_not_reproduced")]
    assert (perf, verdict) == ("pass", "accept")


def test_a_reproduced_claim_has_no_concern() -> None:
    items, perf, verdict = _judged({"submission/eager": _timing(10e-6, seed=1),
                                    "reference/eager": _timing(30e-6, seed=2)}, Claims(speedup=3.0, time_us=10.0))
    assert [(e.outcome, e.defect) for e in items] == [("pass", None), ("pass", None)]
    assert (perf, verdict) == ("pass", "accept")


def test_work_outside_the_timed_stream_is_judged_on_host_time() -> None:
    """A submission whose events see 10 us while the host waits 60 us for side-stream work: the
    concern is reported and its 'speedup' over a 30 us reference is measured on the host clock."""
    hidden = _timing(10e-6, seed=1, host_extra_s=60e-6)
    items, perf, verdict = _judged({"submission/eager": hidden, "reference/eager": _timing(30e-6, seed=2)},
                                   Claims(speedup=3.0))
    side, speed = items
    assert (side.outcome, side.defect) == ("pass", "work_outside_timed_stream")
    assert speed.result["clock"] == "host_s" and speed.defect == "claim_not_reproduced"
    assert speed.result["speedup"] < 0.6  # 38 us / 70 us on the host clock, not 3x on events
    assert (perf, verdict) == ("pass", "accept")


def test_verdicts_are_reproducible_from_the_recorded_times() -> None:
    t = {"submission/eager": _timing(25e-6, seed=4), "reference/eager": _timing(24e-6, seed=5)}
    assert judge_timings(t, Claims(), seed=3) == judge_timings(t, Claims(), seed=3)
