"""The comparison module's facts, the error budget and the verdict rule (no sandbox involved)."""

from __future__ import annotations

import torch

from tools.engine.compare import BUDGET_FACTOR, bitwise_equal, compare_outputs, error_budget, judge, needs_budget
from tools.engine.compare.bitwise import differing_elements


def _matmul(seed: int, k: int = 8192) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    a, b = torch.randn(16, k, generator=g), torch.randn(k, 16, generator=g)
    return a, b, a.double() @ b.double()


def test_spread_facts_flag_a_zero_output_inside_a_loose_tolerance() -> None:
    expected = torch.randn(64) * 0.01
    expected[0] = 0.5  # not every element below atol (that atol would be vacuous: test_judge.py)
    cmp = compare_outputs([torch.zeros(64)], [expected], atol=0.1, rtol=1.0)
    out = cmp.outputs[0]
    assert cmp.ok and out.actual_all_zero and out.actual_constant and out.expected_constant is False
    assert out.spread_ratio == 0.0 and out.expected_std > 0
    j = judge(cmp, None, mode="correctness", default_tolerance=False)
    assert not j.ok and j.defect == "zero_output"


def test_constant_reference_makes_a_constant_output_fine() -> None:
    cmp = compare_outputs([torch.full((8,), 2.0)], [torch.full((8,), 2.0)])
    assert cmp.outputs[0].expected_constant is True
    assert judge(cmp, None, mode="correctness", default_tolerance=True).ok


def test_nan_strict_and_relaxed() -> None:
    e = torch.tensor([1.0, float("nan"), 3.0])
    a = torch.tensor([1.0, 5.0, 3.0])
    strict = compare_outputs([a], [e])
    assert not strict.ok and strict.outputs[0].nonfinite_mismatches == 1 and strict.outputs[0].expected_nonfinite == 1
    assert compare_outputs([a], [e], nan_strict=False).ok
    added = compare_outputs([torch.tensor([1.0, float("nan"), float("nan")])], [e], nan_strict=False)
    assert not added.ok  # a NaN the reference does not have still counts


def test_reordered_fp32_sum_is_within_budget_and_rescued_only_with_default_tolerance() -> None:
    a, b, exact = _matmul(0)
    expected = a @ b
    acc = torch.zeros(16, 16)
    for k in range(0, a.shape[1], 64):
        acc += a[:, k:k + 64] @ b[k:k + 64]
    cmp = compare_outputs([acc], [expected])
    budget = error_budget([acc], [expected], [exact])
    assert not cmp.ok and budget.available and budget.ok and budget.ratio < 8
    assert needs_budget(cmp, "correctness", default_tolerance=True)
    assert judge(cmp, budget, mode="correctness", default_tolerance=True).basis == "error_budget"
    assert not judge(cmp, budget, mode="correctness", default_tolerance=False).ok


def test_fp16_precision_fails_the_budget_even_inside_a_loose_tolerance() -> None:
    a, b, exact = _matmul(1, k=512)
    expected = a @ b
    low = (a.half().float() @ b.half().float())
    cmp = compare_outputs([low], [expected], atol=1.0, rtol=0.1)
    budget = error_budget([low], [expected], [exact])
    assert cmp.ok and budget.ok is False and budget.ratio > 10 * BUDGET_FACTOR
    assert judge(cmp, budget, mode="correctness", default_tolerance=False).ok
    acc = judge(cmp, budget, mode="accuracy", default_tolerance=False)
    assert not acc.ok and acc.defect == "precision_loss" and acc.basis == "error_budget"


def test_exactly_rounded_elementwise_ops_sit_under_the_floor() -> None:
    x = torch.randn(4096)
    exact = torch.exp(x.double())
    alt = torch.exp2(x * 1.4426950408889634)  # a few ULPs off torch.exp, still a correct exp
    budget = error_budget([alt], [torch.exp(x)], [exact])
    assert budget.ok and budget.outputs[0].floor > 0


def test_budget_unavailable_cases() -> None:
    x = torch.randn(8)
    assert "float64" in error_budget([x], [x], [x]).reason  # exact side not float64
    assert error_budget([x, x], [x], [x.double()]).available is False
    assert error_budget([x.double()], [x.double()], [x.double()]).available is False  # nothing below float64
    ints = torch.arange(4)
    assert error_budget([ints], [ints], [ints]).available is False


def test_structure_and_nonfinite_decide_before_the_budget() -> None:
    e = torch.randn(4)
    assert judge(compare_outputs([torch.randn(5)], [e]), None, mode="correctness", default_tolerance=True).basis \
        == "structure"
    assert judge(compare_outputs(["text"], [e]), None, mode="correctness", default_tolerance=True).basis \
        == "structure"
    assert judge(compare_outputs([e, e], [e]), None, mode="correctness", default_tolerance=True).basis == "structure"
    bad = e.clone()
    bad[0] = float("inf")
    j = judge(compare_outputs([bad], [e]), None, mode="accuracy", default_tolerance=True)
    assert not j.ok and j.basis == "nonfinite"


def test_bitwise_equality() -> None:
    x = torch.tensor([0.0, float("nan"), 1.0])
    assert bitwise_equal([x], [x.clone()])
    neg = torch.tensor([-0.0, float("nan"), 1.0])
    assert not bitwise_equal([x], [neg]) and differing_elements(x, neg) == 1
    assert not bitwise_equal([x], [x.double()])
    assert bitwise_equal({"a": [x, 3]}, {"a": [x.clone(), 3]})
