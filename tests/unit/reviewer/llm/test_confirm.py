"""A model's finding is confirmed only by the failing items that ran a probe proposed to test it, found by the
typed probe origin each item carries (``ProbeOrigin``), not by the name of the tool that recorded it."""

from __future__ import annotations

from reviewer.core.models import Evidence, Finding
from reviewer.llm.agent import confirm


def _ev(i: str, outcome: str, finding: str | None) -> Evidence:
    inputs = {"probe": {"assumption": "tail masked", "finding": finding}} if finding else {}
    return Evidence(id=i, tool="probes", criteria=[], outcome=outcome, summary=i, inputs=inputs)


def test_confirm_by_probe_origin() -> None:
    f1 = Finding(id="L1", origin="llm", category="oob", message="tail not masked")
    f2 = Finding(id="L2", origin="llm", category="oob", message="strides ignored")
    out, notes = confirm([f1, f2], [_ev("probes-1", "fail", "L1"), _ev("probes-2", "pass", "L2"),
                                    _ev("correctness-1", "fail", None)])
    assert out[0].confirmed_by == ["probes-1"] and out[1].confirmed_by == []
    assert len(notes) == 1 and "L2" in notes[0] and "probes-2" in notes[0]
