"""Float64 judges where the reference is not finite (tools/engine/compare/reference_exact.py, evaluate.py):
a kernel nearer float64 than an fp16 reference that overflowed is not wrong, even where the reference's
fp16 roundings elsewhere put it outside the default tolerance; a kernel that is wrong stays wrong."""

from __future__ import annotations

import torch

from tools.engine.compare import compare_outputs
from tools.engine.compare.reference_exact import patch_inexact
from tools.engine.evaluate import _float64_judged


def _outputs(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(exact float64, fp16 reference that overflowed at [0] and is 3 ULP off at a few positions, kernel
    rounded once from float64)."""
    g = torch.Generator().manual_seed(seed)
    exact = torch.randn(256, generator=g, dtype=torch.float64) * 1000
    exact[0] = -18860.25
    ref = exact.half()
    ulp = (ref.double().abs().log2().floor() - 10).exp2()
    ref[1:9] = (ref[1:9].double() + 3 * ulp[1:9]).half()
    ref[0] = float("-inf")
    return exact, ref, exact.half()


def test_float64_decides_when_the_patched_comparison_needs_the_budget() -> None:
    exact, ref, kernel = _outputs()
    assert not compare_outputs([kernel], [ref]).ok
    got = _float64_judged([kernel], [ref], [exact], "correctness", None, None, True, True, None)
    assert got is not None, "an fp16 reference's overflow and rounding failed a kernel nearer float64"
    cmp, budget, judgement, found = got
    assert judgement.ok and judgement.basis == "error_budget", judgement.summary
    assert budget is not None and budget.available and found[0].positions == 1
    assert found[0].examples[0]["reference"] == "-inf" and found[0].examples[0]["submission"] == -18864.0


def test_a_wrong_kernel_stays_wrong_where_float64_judges() -> None:
    exact, ref, kernel = _outputs()
    wrong = kernel.clone()
    wrong[0] = -16376.0  # clamped to 65504 before the 0.25 scale
    wrong[10:40] += 50
    assert _float64_judged([wrong], [ref], [exact], "correctness", None, None, True, True, None) is None
    assert _float64_judged([wrong], [ref], [exact], "accuracy", None, None, True, True, None) is None


def test_float64_values_that_round_into_range_are_representable() -> None:
    # 65519 is past fp16's largest finite value (65504) but rounds to it, as a kernel's fp32 result does
    exact = torch.tensor([-65519.0, 1.0], dtype=torch.float64)
    ref = torch.tensor([float("-inf"), 1.0], dtype=torch.float16)
    kernel = exact.half()
    patched, found = patch_inexact([kernel], [ref], [exact])
    assert found and found[0].positions == 1 and float(patched[0][0]) == -65504.0
    # 65520 rounds to inf in fp16: nothing finite to judge against
    _, found = patch_inexact([kernel], [ref], [torch.tensor([-65520.0, 1.0], dtype=torch.float64)])
    assert not found
