"""The hypothesis-driven search: seeded, memoised, budgeted, and shrinking to the smallest failure."""

from __future__ import annotations

import time

from tools.generality.search import SearchDim, Search, Trial

DIMS = [SearchDim("batch", [16, 1, 2, 3, 5, 7, 13, 33]), SearchDim("dim", [256, 1, 2, 3, 5, 7, 13, 255, 257, 513])]


def _search(fn, *, examples: int = 20, budget: float = 60.0, dims=DIMS) -> tuple[Search, list]:
    calls: list[dict] = []

    def trial(cfg: dict) -> Trial:
        calls.append(cfg)
        return fn(cfg)

    s = Search(dims, trial, rng_seed=7, max_examples=examples, deadline=time.monotonic() + budget)
    return s, calls


def test_failure_shrinks_to_the_smallest_value_with_the_rest_nominal() -> None:
    s, calls = _search(lambda c: Trial(c, "fail" if c["dim"] % 256 else "pass"))
    result = s.run()
    assert result.failure is not None and result.shrunk
    assert result.failure.config == {"batch": 16, "dim": 1}
    keys = [Search.key(c) for c in calls]
    assert len(keys) == len(set(keys))  # every configuration evaluated once


def test_sweep_finds_a_single_value_random_generation_missed() -> None:
    s, _ = _search(lambda c: Trial(c, "fail" if c["dim"] == 513 else "pass"), examples=2)
    result = s.run()
    assert result.failure is not None and result.failure.config == {"batch": 16, "dim": 513}


def test_same_seed_same_trials() -> None:
    def fn(c: dict) -> Trial:
        return Trial(c, "pass")

    a, _ = _search(fn, examples=10)
    b, _ = _search(fn, examples=10)
    assert [t.config for t in a.run().trials] == [t.config for t in b.run().trials]


def test_budget_spent_means_skipped_not_failed() -> None:
    s, calls = _search(lambda c: Trial(c, "fail"), budget=-1.0)
    result = s.run()
    assert result.failure is None and not calls and result.unrun > 0 and "backstop" in result.stopped and result.backstop
    assert result.unrun_configs


def test_costly_failures_stop_the_search() -> None:
    s, calls = _search(lambda c: Trial(c, "inconclusive" if c["dim"] != 256 else "pass", costly=True))
    result = s.run()
    assert result.failure is None
    assert sum(1 for c in calls if c["dim"] != 256) == 2  # the allowance, then everything is skipped
    assert "crashes or hangs" in result.stopped and not result.backstop


def test_extra_configurations_join_the_sweep() -> None:
    dims = [SearchDim("size", [127, 1, 3])]
    s, _ = _search(lambda c: Trial(c, "fail" if c["size"] == 4096 else "pass"), dims=dims)
    result = s.run(extra=[{"size": 4096}])
    assert result.failure is not None and result.failure.config == {"size": 4096} and not result.shrunk


def test_single_changes_run_first_small_values_of_every_dimension_before_large_ones() -> None:
    s, calls = _search(lambda c: Trial(c, "pass"))
    s.run()
    singles = [c for c in calls if (c["batch"] != 16) + (c["dim"] != 256) == 1]
    assert calls[:len(singles) + 1][1:] == singles  # the sweep precedes every combination
    assert singles[:4] == [{"batch": 1, "dim": 256}, {"batch": 16, "dim": 1},
                           {"batch": 2, "dim": 256}, {"batch": 16, "dim": 2}]
