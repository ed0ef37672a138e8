"""Statistics of a benchmark: summaries, adaptive stopping, speedup confidence intervals, verdicts.

Pure Python + numpy, no GPU: the parent recomputes everything here from the raw per-repetition times
the child sends (the child's own arithmetic is not trusted), and the CPU tests drive it with
synthetic timings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

# Rationale: GPU MODE's harness stops at err/mean < 0.001; the same target here.
REL_SEM_TARGET = 1e-3
# Rationale: a claim was measured on another machine, driver and clock state; 10 % covers that
# variation between H100-class systems without letting a 2x overclaim through.
CLAIM_SLACK = 0.10


class Summary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n: int
    median: float
    mean: float
    std: float
    sem: float
    rel_sem: float
    cv: float
    q1: float
    q3: float
    iqr: float
    min: float
    max: float


def summarize(samples: Sequence[float]) -> Summary:
    x = np.asarray(samples, dtype=float)
    if x.size == 0:
        raise ValueError("no samples")
    mean = float(x.mean())
    std = float(x.std(ddof=1)) if x.size > 1 else 0.0
    sem = std / math.sqrt(x.size)
    q1, med, q3 = (float(v) for v in np.percentile(x, [25, 50, 75]))
    return Summary(n=int(x.size), median=med, mean=mean, std=std, sem=sem, rel_sem=sem / mean if mean else math.inf,
                   cv=std / mean if mean else math.inf, q1=q1, q3=q3, iqr=q3 - q1, min=float(x.min()),
                   max=float(x.max()))


class StopRule(BaseModel):
    """When to stop repeating: the relative standard error of the mean below ``rel_sem`` after at
    least ``min_reps`` repetitions and ``min_time_s`` of measured time; or a cap."""

    model_config = ConfigDict(extra="forbid")

    rel_sem: float = REL_SEM_TARGET
    min_reps: int = 10
    min_time_s: float = 0.1
    max_reps: int = 10_000
    max_time_s: float = 10.0

    def check(self, samples: Sequence[float], elapsed_s: float) -> str | None:
        """None to continue, else why the loop stops: ``converged``, ``max_reps`` or ``max_time``."""
        n = len(samples)
        if n >= self.min_reps and elapsed_s >= self.min_time_s and n > 1:
            s = summarize(samples)
            if s.rel_sem < self.rel_sem:
                return "converged"
        if n >= self.max_reps:
            return "max_reps"
        if elapsed_s >= self.max_time_s:
            return "max_time"
        return None


def speedup_ci(reference: Sequence[float], candidate: Sequence[float], *, confidence: float = 0.95,
               n_boot: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Speedup = median(reference) / median(candidate), with a percentile bootstrap interval
    (both samples resampled independently, seeded: the interval is reproducible)."""
    ref = np.asarray(reference, dtype=float)
    cand = np.asarray(candidate, dtype=float)
    if ref.size == 0 or cand.size == 0:
        raise ValueError("no samples")
    point = float(np.median(ref) / np.median(cand))
    rng = np.random.default_rng(seed)
    r = np.median(rng.choice(ref, size=(n_boot, ref.size), replace=True), axis=1)
    c = np.median(rng.choice(cand, size=(n_boot, cand.size), replace=True), axis=1)
    ratios = r / c
    alpha = (1 - confidence) / 2
    lo, hi = (float(v) for v in np.quantile(ratios, [alpha, 1 - alpha]))
    return point, lo, hi


class PerformanceVerdict(BaseModel):
    """A measured speed or time against the reference or a claim. Being slower, or not reproducing a
    claim, is a *concern* (``outcome`` pass, ``defect`` naming it, a warning finding in the draft):
    it does not make the kernel wrong or unlaunchable, so it never fails the optional performance
    criterion (rubrics/default.yaml ``fail_on``)."""

    model_config = ConfigDict(extra="forbid")

    outcome: str  # pass: the measurement ran; ``defect`` set when it found a concern
    defect: str | None
    summary: str

    @property
    def concern(self) -> bool:
        return self.defect is not None


def judge_speedup(point: float, lo: float, hi: float, *, claimed_speedup: float | None,
                  baseline: str) -> PerformanceVerdict:
    """With a claim: it holds unless even the interval's upper end is more than CLAIM_SLACK below it.
    Without: no concern unless the submission is slower than the reference with confidence (hi < 1)."""
    measured = f"measured speedup {point:.3g}x over {baseline} (95% CI {lo:.3g}-{hi:.3g})"
    if claimed_speedup is not None:
        if hi >= claimed_speedup * (1 - CLAIM_SLACK):
            return PerformanceVerdict(outcome="pass", defect=None,
                                      summary=f"{measured} supports the claimed {claimed_speedup:.3g}x")
        return PerformanceVerdict(outcome="pass", defect="claim_not_reproduced",
                                  summary=f"{measured} falls short of the claimed {claimed_speedup:.3g}x "
                                          f"(more than {CLAIM_SLACK:.0%} below it; a concern, not a defect of the kernel)")
    if hi < 1.0:
        return PerformanceVerdict(outcome="pass", defect="slower_than_reference",
                                  summary=f"{measured}: slower than the reference (a concern, not a defect of the kernel)")
    return PerformanceVerdict(outcome="pass", defect=None, summary=f"{measured}: not slower than the reference")


def judge_time(median_s: float, claimed_s: float) -> PerformanceVerdict:
    if median_s <= claimed_s * (1 + CLAIM_SLACK):
        return PerformanceVerdict(outcome="pass", defect=None,
                                  summary=f"measured median {median_s * 1e6:.4g} us supports the claimed "
                                          f"{claimed_s * 1e6:.4g} us")
    return PerformanceVerdict(outcome="pass", defect="claim_not_reproduced",
                              summary=f"measured median {median_s * 1e6:.4g} us is more than {CLAIM_SLACK:.0%} above "
                                      f"the claimed {claimed_s * 1e6:.4g} us (a concern, not a defect of the kernel)")
