"""The verdict rules of tools/engine/compare/judge.py on real comparisons: a vacuous atol is scaled to the
output's magnitude, and without a float64 budget a mismatch inside the rounding bound is unverified."""

from __future__ import annotations

import torch

from tools.engine.compare import RoundingBound, compare_outputs, judge, needs_budget
from tools.engine.compare.budget import unavailable


def _softmax_wide() -> torch.Tensor:
    torch.manual_seed(0)
    return torch.softmax(torch.rand(4, 65536 * 4), dim=1)  # every element near 4e-6 < atol 1e-5


def test_vacuous_atol_is_scaled_and_said() -> None:
    e = _softmax_wide()
    wrong = compare_outputs([e / 4], [e])  # normalised over the whole tensor: 75 % off everywhere
    (o,) = wrong.outputs
    assert not wrong.ok and o.atol_vacuous and o.given_atol == 1e-5 and o.atol < 1e-9
    assert "vacuous" in wrong.reason
    right = compare_outputs([e * (1 + 2e-7)], [e])
    assert right.ok and "vacuous" in right.headline()


def test_outputs_of_order_one_keep_their_atol() -> None:
    e = torch.linspace(-1, 1, 100)
    cmp = compare_outputs([e + 5e-6], [e])
    assert cmp.ok and not cmp.outputs[0].atol_vacuous and cmp.outputs[0].atol == 1e-5


def test_vacuous_mismatch_goes_to_the_budget_even_with_a_task_tolerance() -> None:
    e = _softmax_wide()
    cmp = compare_outputs([e * (1 + 1e-3)], [e], atol=1e-5, rtol=1e-5)
    assert not cmp.ok and needs_budget(cmp, "correctness", default_tolerance=False)


def test_no_budget_inside_the_rounding_bound_is_unverified() -> None:
    torch.manual_seed(0)
    a, b = torch.randn(64, 512), torch.randn(512, 64)
    e = a @ b
    near = e.clone()
    near[0, 0] += 2.3e-5 + 1e-5 * e[0, 0].abs()  # a cancellation element: beyond fp32 defaults, far inside K eps |e|
    cmp = compare_outputs([near], [e])
    assert not cmp.ok
    bound = RoundingBound.of(cmp, 512)
    j = judge(cmp, unavailable("the reference upcasts internally"), mode="correctness", default_tolerance=True,
              bound=bound)
    assert not j.ok and j.unverified and j.basis == "rounding_bound" and "rounding bound" in j.summary
    wrong = e.clone()
    wrong[0, 0] += 1.0
    cmp = compare_outputs([wrong], [e])
    j = judge(cmp, unavailable("no float64"), mode="correctness", default_tolerance=True,
              bound=RoundingBound.of(cmp, 512))
    assert not j.ok and j.unverified is None and j.basis == "tolerance"
    # a task's own tolerance decides without the bound
    cmp = compare_outputs([near], [e], atol=1e-5, rtol=1e-6)
    j = judge(cmp, None, mode="correctness", default_tolerance=False, bound=RoundingBound.of(cmp, 512))
    assert not j.ok and j.unverified is None
