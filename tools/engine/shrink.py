"""Shrinking a known failing configuration to the smallest one that still fails, with hypothesis.

A configuration picks one value per dimension; every dimension's values are ordered simplest first
and end with the value of the known failing configuration, so hypothesis' shrinking (towards earlier
values of ``sampled_from``) ends on the configuration that is smallest in every dimension and still
fails. Hypothesis starts from its simplest example and then generates, so a search that finds no
failure returns the known one unchanged (``shrunk`` False). Every evaluation is memoised and the
number of evaluations is bounded (``max_examples``): what runs is decided by the seed, never by the
clock.

(tools/generality/search.py drives hypothesis the same way for the generality search; a plugin is
not importable from the engine, and this one needs only the shrinking half.)
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis import strategies as st

from tools.engine.hypothesis_home import private_storage


@dataclass
class Dim:
    name: str
    values: list[Any]
    """Simplest first; the last is the known failing configuration's value."""


@dataclass
class Shrunk:
    config: dict[str, Any]
    shrunk: bool
    tried: list[tuple[dict[str, Any], bool]] = field(default_factory=list)
    """Every configuration evaluated, in order, with whether it still fails."""


class _Failing(Exception):
    pass


def _key(config: dict[str, Any]) -> str:
    return json.dumps(config, sort_keys=True, default=str)


def _rank(dims: list[Dim], config: dict[str, Any]) -> tuple[int, tuple[int, ...]]:
    """Smaller is simpler: the sum of the value ranks, then the ranks in dimension order."""
    ranks = tuple(d.values.index(config[d.name]) for d in dims)
    return sum(ranks), ranks


def shrink(dims: list[Dim], fails: Callable[[dict[str, Any]], bool], *, rng_seed: int,
           max_examples: int = 30) -> Shrunk:
    """The smallest configuration over ``dims`` for which ``fails`` is true (the known failing one,
    all last values, when hypothesis finds nothing smaller). ``fails`` runs at most ``max_examples``
    times plus hypothesis' shrink steps, each configuration once."""
    dims = [d for d in dims if d.values]
    known = {d.name: d.values[-1] for d in dims}
    cache: dict[str, bool] = {_key(known): True}
    tried: list[tuple[dict[str, Any], bool]] = []
    if not dims or all(len(d.values) == 1 for d in dims):
        return Shrunk(config=known, shrunk=False)
    best = [known]

    def check(config: dict[str, Any]) -> bool:
        k = _key(config)
        if k not in cache:
            cache[k] = bool(fails(config))
            tried.append((dict(config), cache[k]))
        if cache[k] and _rank(dims, config) < _rank(dims, best[0]):
            best[0] = dict(config)
        return cache[k]

    strategy = st.fixed_dictionaries({d.name: st.sampled_from(d.values) for d in dims})

    @settings(max_examples=max_examples, deadline=None, database=None, derandomize=False,
              phases=[Phase.generate, Phase.shrink], report_multiple_bugs=False,
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)
    @seed(rng_seed)
    @given(strategy)
    def prop(config: dict[str, Any]) -> None:
        if check(config):
            raise _Failing

    with contextlib.suppress(_Failing), private_storage():
        prop()
    return Shrunk(config=best[0], shrunk=best[0] != known, tried=tried)
