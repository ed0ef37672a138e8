"""A bounded configuration search driven by hypothesis, so a failure shrinks to the smallest one.

A configuration picks one value per dimension; ``values[0]`` of every dimension is the base (the
nominal size, contiguous layout, native dtype) and the rest are ordered from small to large, so
hypothesis' shrinking (towards earlier values) ends on a configuration that differs from the base
in as few dimensions as possible, each by the smallest value that still fails.

Every one-dimension variation is run first, the small values of every dimension before the large
ones (the sweep: cheap, revealing configurations first, so a work budget cuts large sizes rather
than whole dimensions); hypothesis then combines dimensions, and a failure found by the sweep is
handed to hypothesis on the values up to it, to be shrunk like any other. Every evaluation is memoised. What runs is decided
by the seed and by counted work (the trial function skips what the work budget cannot afford,
tools/engine/work_units.py), never by the clock; once the wall-clock backstop or the allowance for costly
failures (crashes, hangs) is spent, untried configurations are recorded as skipped, which also ends
shrinking where it stands, and listed in ``unrun_configs`` for the caller to report as not run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis import strategies as st

from tools.engine.hypothesis_home import private_storage

TrialVerdict = Literal["pass", "fail", "rejected", "invalid", "skipped", "inconclusive"]


@dataclass
class Trial:
    config: dict[str, Any]
    verdict: TrialVerdict
    note: str = ""
    costly: bool = False
    """A failure that costs a child restart (crash, hang): few of them are affordable."""
    payload: Any = None


@dataclass
class SearchDim:
    name: str
    values: list[Any]


@dataclass
class SearchResult:
    trials: list[Trial] = field(default_factory=list)
    failure: Trial | None = None
    shrunk: bool = False
    stopped: str = ""
    unrun: int = 0
    """Configurations hypothesis or the sweep asked for after the backstop or allowance was spent."""
    unrun_configs: list[dict[str, Any]] = field(default_factory=list)
    backstop: bool = False
    """Whether the wall-clock backstop (not the plan) stopped the search."""
    aimed: str = ""
    """When the failure was found by a size aimed at a host branch no other configuration took."""

    def count(self, verdict: TrialVerdict) -> int:
        return sum(1 for t in self.trials if t.verdict == verdict)


class _Found(Exception):
    def __init__(self, trial: Trial) -> None:
        super().__init__(json.dumps(trial.config, default=str))
        self.trial = trial


class Search:
    def __init__(self, dims: list[SearchDim], trial_fn: Callable[[dict[str, Any]], Trial], *, rng_seed: int,
                 max_examples: int, deadline: float, costly_allowance: int = 2) -> None:
        self.dims = [d for d in dims if d.values]
        self.trial_fn = trial_fn
        self.rng_seed = rng_seed
        self.max_examples = max_examples
        self.deadline = deadline
        self.costly_left = costly_allowance
        self.cache: dict[str, Trial] = {}
        self.order: list[Trial] = []
        self.stopped = ""
        self.unrun = 0
        self.unrun_configs: list[dict[str, Any]] = []
        self.backstop = False

    @staticmethod
    def key(config: dict[str, Any]) -> str:
        return json.dumps(config, sort_keys=True, default=str)

    def trial(self, config: dict[str, Any]) -> Trial:
        k = self.key(config)
        if k in self.cache:
            return self.cache[k]
        if time.monotonic() > self.deadline or self.costly_left <= 0:
            if not self.stopped:
                self.backstop = self.costly_left > 0
                self.stopped = ("the wall-clock backstop was reached" if self.backstop
                                else "stopped after repeated crashes or hangs")
            self.unrun += 1
            self.unrun_configs.append(dict(config))
            t = Trial(config, "skipped", note=self.stopped)
            self.cache[k] = t
            return t
        t = self.trial_fn(config)
        if t.costly and t.verdict in ("fail", "inconclusive"):
            self.costly_left -= 1
        self.cache[k] = t
        self.order.append(t)
        return t

    def seed_trial(self, config: dict[str, Any], trial: Trial) -> None:
        """Record a configuration already evaluated elsewhere (the nominal run)."""
        self.cache[self.key(config)] = trial

    def _hypothesis(self, dims: list[SearchDim], max_examples: int) -> Trial | None:
        strategy = st.fixed_dictionaries({d.name: st.sampled_from(d.values) for d in dims})

        @settings(max_examples=max_examples, deadline=None, database=None, derandomize=False,
                  phases=[Phase.generate, Phase.shrink], report_multiple_bugs=False,
                  suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)
        @seed(self.rng_seed)
        @given(strategy)
        def prop(config: dict[str, Any]) -> None:
            t = self.trial(config)
            if t.verdict == "fail":
                raise _Found(t)

        try:
            with private_storage():
                prop()
        except _Found as found:
            return found.trial
        return None

    def _singles(self) -> list[dict[str, Any]]:
        """The base, then every single change, round-robin over dimensions by value rank."""
        base = {d.name: d.values[0] for d in self.dims}
        out = [dict(base)]
        for i in range(1, max((len(d.values) for d in self.dims), default=1)):
            out += [{**base, d.name: d.values[i]} for d in self.dims if i < len(d.values)]
        return out

    def run(self, extra: list[dict[str, Any]] | None = None) -> SearchResult:
        """Search; ``extra`` configurations (large sizes, a task's benchmark shapes) are tried after
        the single changes in the sweep."""
        names = {d.name for d in self.dims}
        failure, shrunk = None, False
        for config in self._singles() + [c for c in (extra or []) if set(c) == names]:
            t = self.trial(config)
            if t.verdict == "fail":
                failure = t
                break
        if failure is None:
            failure = self._hypothesis(self.dims, self.max_examples)
            shrunk = failure is not None
        else:
            narrowed = []
            for d in self.dims:
                v = failure.config[d.name]
                idx = d.values.index(v) if v in d.values else len(d.values) - 1
                narrowed.append(SearchDim(d.name, d.values[:idx + 1]) if idx else d)
            again = self._hypothesis(narrowed, max(10, 3 * sum(len(d.values) for d in narrowed)))
            if again is not None:
                failure, shrunk = again, True
        return SearchResult(trials=list(self.order), failure=failure, shrunk=shrunk, stopped=self.stopped,
                            unrun=self.unrun, unrun_configs=list(self.unrun_configs), backstop=self.backstop)

    def planned(self, extra: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """The configurations the sweep covers (every single change, then ``extra``), base excluded:
        what a summary counts as tried or not."""
        names = {d.name for d in self.dims}
        out = self._singles()[1:] + [c for c in (extra or []) if set(c) == names]
        seen: set[str] = set()
        return [c for c in out if not (self.key(c) in seen or seen.add(self.key(c)))]
