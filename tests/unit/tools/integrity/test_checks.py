"""What the integrity launch check concludes from the launch count depends on the framework: its
backend says so (custom_kernel, launch_count, jax_traced), not a framework== branch."""

from __future__ import annotations

import pytest

import tools.integrity.checks as C
from tests.unit.tools.integrity.test_integrity import _probe
from tools.integrity.static_scan import Scan


def _no_launch(framework: str, kernels: list[str]) -> C.Probe:
    base = _probe()
    sub = {**base.sub, "calls": [{**base.sub["calls"][0], "launches": 0, "derived_from_launch": False}]}
    return _probe(framework=framework, sub=sub, scan=Scan(kernels=kernels))


@pytest.mark.parametrize(("framework", "kernels", "outcome", "defect"), [
    ("triton", [], "fail", "no_kernel"),
    ("torch", [], "fail", "no_custom_kernel"),
    ("torch", ["my_kernel"], "fail", "no_kernel"),
    ("unknown", [], "fail", "no_kernel"),
    ("cuda", [], "info", None),
    ("pallas", [], "info", None),
    ("nki", ["nki_kernel"], "info", None),
])
def test_no_launch_counted_is_judged_by_the_framework(framework: str, kernels: list[str], outcome: str,
                                                      defect: str | None) -> None:
    check = C.check_launches(_no_launch(framework, kernels))
    assert (check.outcome, check.defect) == (outcome, defect), check.summary


def test_a_pallas_trace_error_is_unverified_only_for_a_jax_traced_framework() -> None:
    base = _probe()
    sub = {**base.sub, "trace": {"ops": [], "jax": {"error": "observer broke"}}}
    assert C.check_launches(_probe(framework="pallas", sub=sub)).defect == "observer_error"
    assert C.check_launches(_probe(framework="triton", sub=sub)).defect != "observer_error"
