"""tools/engine/shrink.py: hypothesis shrinks a known failing configuration to the simplest one that
still fails, deterministically under a seed, evaluating each configuration once."""

from __future__ import annotations

from typing import Any

from tools.engine.shrink import Dim, shrink


def test_shrinks_every_dimension_to_its_smallest_failing_value() -> None:
    calls: list[dict[str, Any]] = []

    def fails(cfg: dict[str, Any]) -> bool:
        calls.append(cfg)
        return cfg["n"] >= 5 and cfg["m"] % 2 == 1

    dims = [Dim("m", [1, 2, 3, 7]), Dim("n", [1, 2, 3, 4, 5, 8, 16, 100])]
    res = shrink(dims, fails, rng_seed=3, max_examples=40)
    assert res.shrunk and res.config == {"m": 1, "n": 5}
    assert len(calls) == len({tuple(sorted(c.items())) for c in calls})  # each configuration once
    assert all(fails(c) == ok for c, ok in res.tried)
    again = shrink(dims, lambda c: c["n"] >= 5 and c["m"] % 2 == 1, rng_seed=3, max_examples=40)
    assert again.config == res.config


def test_nothing_smaller_fails_keeps_the_known_configuration() -> None:
    dims = [Dim("n", [1, 2, 3, 9])]
    res = shrink(dims, lambda c: c["n"] == 9, rng_seed=1, max_examples=10)
    assert res.config == {"n": 9} and not res.shrunk


def test_single_values_need_no_search() -> None:
    res = shrink([Dim("n", [4])], lambda c: True, rng_seed=1)
    assert res.config == {"n": 4} and not res.shrunk and res.tried == []
