"""The typed facts tools leave for each other (tools/engine/facts.py)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tools.engine.facts import AutotuneLaunches, Facts, PallasCalls, TritonLaunches
from tools.engine.harness.case import Case


def test_a_fact_is_found_by_its_type_and_replaced_by_a_newer_one() -> None:
    facts = Facts()
    assert facts.get(AutotuneLaunches) is None
    facts.put(AutotuneLaunches(({"kernel": "k", "autotune_config": 0},)))
    facts.put(TritonLaunches({"launches": []}))
    assert facts.get(AutotuneLaunches) == AutotuneLaunches(({"kernel": "k", "autotune_config": 0},))
    assert facts.get(TritonLaunches) == TritonLaunches({"launches": []})
    assert PallasCalls not in facts and AutotuneLaunches in facts
    facts.put(AutotuneLaunches(()))
    got = facts.get(AutotuneLaunches)
    assert got is not None and got.launches == ()


def test_a_fact_is_immutable_and_must_be_a_frozen_dataclass() -> None:
    fact = PallasCalls(case=Case(id="c", seed=1, params={}), calls=())
    with pytest.raises(AttributeError):
        fact.calls = None  # type: ignore[misc]

    @dataclass
    class Loose:
        value: int

    with pytest.raises(TypeError, match="frozen dataclass"):
        Facts().put(Loose(1))
    with pytest.raises(TypeError, match="frozen dataclass"):
        Facts().put({"roofline": 1})


def test_build_outcome_reads_failed_until_the_check_finishes_with_passes_only() -> None:
    from reviewer.core.models import Evidence
    from tools.engine.facts import BuildOutcome

    def item(outcome: str) -> Evidence:
        return Evidence(id="b-1", tool="builds", criteria=["builds"], outcome=outcome, summary="s")  # type: ignore[arg-type]

    assert BuildOutcome().failed  # the check broke off before it finished
    assert not BuildOutcome(items=(item("pass"), item("info")), finished=True).failed
    assert BuildOutcome(items=(item("pass"), item("unverified")), finished=True).failed
    assert BuildOutcome(items=(item("fail"),), finished=True).failed
