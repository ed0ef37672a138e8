"""What the benchmark concludes from the timings the children sent: pure, no GPU, so the CPU tests
drive it with recorded measurements.

Nothing measured here makes a kernel wrong or unable to launch: being slower than the reference, a
claim the measurement does not reproduce, and host work outside the timed stream are *concerns*
(outcome ``pass``, the concern as ``defect``, a warning finding in the draft). The one fail the
performance criterion keeps, a time below the speed-of-light floor (``impossible_speed``), is judged
by tools/engine/speed_of_light.py.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from reviewer.core.submission import Claims
import tools.benchmark.stats as stats

# Rationale: host time exceeds event time by launch and synchronisation latency (~10-50 us); much
# more than that means work the current stream's events did not see (side streams, host threads).
HOST_EXCESS_S = 50e-6
HOST_EXCESS_FRACTION = 0.2


class TimingJudgement(BaseModel):
    """One evidence item's worth of conclusion."""

    model_config = ConfigDict(extra="forbid")

    check: str
    outcome: str
    defect: str | None
    summary: str
    result: dict[str, Any]


def side_work(submission: Mapping[str, Any]) -> tuple[bool, float]:
    """Whether the submission's host time exceeds its CUDA-event time by more than launch latency
    (work the timed stream's events did not see), and the median excess."""
    excess = statistics.median(h - e for h, e in zip(submission["host_s"], submission["event_s"]))
    median = statistics.median(submission["event_s"])
    return excess > HOST_EXCESS_S + HOST_EXCESS_FRACTION * median, excess


def judge_timings(timings: Mapping[str, Mapping[str, Any]], claims: Claims, *, seed: int) -> list[TimingJudgement]:
    """The benchmark's conclusions from ``timings`` (``role/mode`` -> the child's ``event_s``,
    ``host_s``; ``submission/eager`` and ``reference/eager`` present). With work outside the timed
    stream, the speedup and the claimed time are judged on host wall time (device-wide synchronize
    on both sides), which that work cannot escape."""
    sub = timings["submission/eager"]
    hidden, excess = side_work(sub)
    clock = "host_s" if hidden else "event_s"
    out: list[TimingJudgement] = []
    if hidden:
        out.append(TimingJudgement(
            check="host wall time vs CUDA events", outcome="pass", defect="work_outside_timed_stream",
            summary=(f"host time exceeds the CUDA-event time by {excess * 1e6:.3g} us per call (median "
                     f"{statistics.median(sub['event_s']) * 1e6:.3g} us): work runs outside the timed stream; "
                     "speed judged on host wall time (a concern, not a defect of the kernel)"),
            result={"host_minus_event_median_s": excess}))
    base = "reference/compile" if claims.baseline == "compile" and "reference/compile" in timings else "reference/eager"
    point, lo, hi = stats.speedup_ci(timings[base][clock], sub[clock], seed=seed)
    v = stats.judge_speedup(point, lo, hi, claimed_speedup=claims.speedup, baseline=base.split("/")[1])
    out.append(TimingJudgement(check="speedup = median(reference) / median(submission), bootstrap CI", outcome=v.outcome,
                         defect=v.defect, summary=v.summary,
                         result={"speedup": point, "ci95": [lo, hi], "baseline": base, "clock": clock,
                                 "bootstrap_seed": seed, "claims": claims.model_dump()}))
    if claims.time_us is not None:
        median = statistics.median(sub[clock])
        t = stats.judge_time(median, claims.time_us * 1e-6)
        out.append(TimingJudgement(check="claimed time", outcome=t.outcome, defect=t.defect, summary=t.summary,
                             result={"median_s": median, "clock": clock, "claims": claims.model_dump()}))
    return out
