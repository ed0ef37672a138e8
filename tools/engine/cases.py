"""Building the concrete cases a tool runs from the submission's nominal cases and the run's seeds."""

from __future__ import annotations

from tools.engine.tool import ToolContext
from tools.engine.harness.case import Case


def _with_seed(params: dict, seed: int) -> dict:
    return {**params, "seed": seed} if "seed" in params else dict(params)


def nominal_cases(ctx: ToolContext, n_seeds: int, purpose: str = "correctness") -> list[Case]:
    """The nominal inputs under ``n_seeds`` run seeds.

    KernelBench / manifest: every nominal case under each seed. GPU MODE: every ``tests:`` entry
    with its public seed, then ``n_seeds`` entries re-seeded with seeds the submission cannot know
    (GPU MODE's own harness mixes a secret seed in for the same reason)."""
    sub = ctx.submission
    seeds = ctx.seeds(n_seeds, purpose)
    dtype = sub.dtype
    cases: list[Case] = []
    if sub.format == "gpumode":
        for i, nc in enumerate(sub.nominal_cases):
            seed = nc.seed if nc.seed is not None else seeds[i % len(seeds)]
            cases.append(Case(id=f"{purpose}-t{i}", seed=seed, params=_with_seed(nc.params, seed), dtype=dtype,
                              label=f"{nc.label} (public seed)"))
        for j, seed in enumerate(seeds):
            nc = sub.nominal_cases[j % len(sub.nominal_cases)]
            if "seed" in nc.params:
                cases.append(Case(id=f"{purpose}-s{j}", seed=seed, params=_with_seed(nc.params, seed), dtype=dtype,
                                  label=f"{nc.label} with run seed {seed}"))
        return cases
    for i, nc in enumerate(sub.nominal_cases):
        case_seeds = ([nc.seed] if nc.seed is not None else []) + seeds
        for j, seed in enumerate(case_seeds[:max(n_seeds, 1)]):
            cases.append(Case(id=f"{purpose}-{i}-{j}", seed=seed, params=dict(nc.params), dtype=dtype,
                              label=f"{nc.label}, seed {seed}"))
    return cases
