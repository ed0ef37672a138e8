"""The reviewer's own process computes with torch on one thread (issue 34).

Rationale: the parent compares outputs (about a hundred a review) and measures error budgets while the
sandbox children run on the other cores. With torch's default of one thread per core, each parallel
operation waits for a thread that a child has taken the core from: on 2 cores with the children busy, a
review's comparisons took 2.6-2.9 s on two threads and 0.28 s on one (``benchmarks/own_threads.py``).
One thread also makes the parent's sums and maxima the same on every machine: a reduction split over a
machine-dependent number of threads rounds differently, and evidence is reproduced bit for bit.
"""

from __future__ import annotations


def compute_on_one_thread() -> None:
    """Set torch's intra-op threads of this process to one (the children set their own): at a review's
    plan, after its children started (importing torch before would hold their start back), and at every
    comparison and error budget, so a rerun or an audit sums as the review did. A process that embeds the
    reviewer (``reviewer.api``) keeps that setting after a review."""
    import torch

    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)
