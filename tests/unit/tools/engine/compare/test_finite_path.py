"""The comparison's path for outputs without NaN or inf (tools/engine/compare/compare.py) gives the
record the general rule gives, field for field and bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tools.engine.compare.compare import compare_tensor


def _cases() -> list[tuple[str, torch.Tensor, torch.Tensor, float | None, float | None]]:
    g = torch.Generator().manual_seed(0)
    out = []
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        for shape in ((), (7,), (3, 5, 11), (64, 257)):
            e = torch.randn(shape, generator=g).to(dtype)
            close = (e.double() * (1 + 1e-4 * torch.randn(shape, generator=g, dtype=torch.float64))).to(dtype)
            out.append((f"close-{dtype}-{shape}", close, e, None, None))
            out.append((f"far-{dtype}-{shape}", (e.double() + 0.5).to(dtype), e, None, None))
            out.append((f"zeros-{dtype}-{shape}", torch.zeros(shape, dtype=dtype), e, None, None))
            out.append((f"same-{dtype}-{shape}", e.clone(), e, None, None))
            # every reference element below atol: the vacuous-atol rule scales it
            tiny = (e.double() * 1e-7).to(dtype)
            out.append((f"vacuous-{dtype}-{shape}", (tiny.double() * 1.5).to(dtype), tiny, 1e-5, 1e-3))
            out.append((f"constant-{dtype}-{shape}", torch.full(shape, 0.25, dtype=dtype), e, 10.0, 0.0))
    signed = torch.tensor([0.0, -0.0, 1.0, -1.0, 3e-8])
    out.append(("signed-zeros", torch.tensor([-0.0, 0.0, 1.0, -1.0, 0.0]), signed, 0.0, 0.0))
    out.append(("exact-tolerance", signed + 1e-3, signed, 1e-3, 0.0))
    return out


@pytest.mark.parametrize(("name", "actual", "expected", "atol", "rtol"), _cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_the_finite_path_gives_the_general_rules_record(name: str, actual: torch.Tensor, expected: torch.Tensor,
                                                        atol: float | None, rtol: float | None) -> None:
    fast = compare_tensor("out", actual, expected, atol, rtol)
    general = compare_tensor("out", actual, expected, atol, rtol, _finite_path=False)
    assert fast.model_dump() == general.model_dump(), name


def test_the_cases_reach_both_outcomes_and_the_scaled_atol() -> None:
    records = [compare_tensor("out", a, e, at, rt) for _, a, e, at, rt in _cases()]
    assert {r.ok for r in records} == {True, False}
    assert any(r.atol_vacuous for r in records)
    assert any(r.worst and r.mismatch_flat_range for r in records)


def test_a_nan_or_inf_takes_the_general_rule() -> None:
    e = torch.tensor([1.0, float("nan"), float("inf"), 2.0])
    a = torch.tensor([1.0, float("nan"), float("-inf"), 2.0])
    rec = compare_tensor("out", a, e, None, None)
    assert (rec.ok, rec.nonfinite_mismatches, rec.expected_nonfinite, rec.mismatches) == (False, 1, 2, 1)
    assert rec.max_abs_err == 0.0 and rec.expected_abs_max == 2.0


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16])
def test_ulp_distance_counts_representable_values_between(dtype: torch.dtype) -> None:
    from tools.engine.compare.ulp import ulp_distance

    one = torch.tensor([1.0], dtype=dtype)
    tiny = torch.tensor([torch.finfo(dtype).smallest_normal], dtype=dtype)
    up3 = one
    for _ in range(3):
        up3 = torch.nextafter(up3, torch.tensor([2.0], dtype=dtype)) if dtype != torch.bfloat16 else \
            (up3.view(torch.int16) + 1).view(torch.bfloat16)
    actual = torch.cat([up3, -tiny, torch.tensor([-0.0, float("nan"), 1.0], dtype=dtype)])
    expected = torch.cat([one, tiny, torch.tensor([0.0, 1.0, float("nan")], dtype=dtype)])
    d = ulp_distance(actual, expected)
    # three steps above 1; -x to +x crosses zero once per normal step below x (2 * 2^(mantissa bits)
    # subnormals and the normal itself, counted from the bits); -0 is +0; NaN on either side is -1
    mantissa = {torch.float64: 52, torch.float32: 23, torch.float16: 10, torch.bfloat16: 7}[dtype]
    assert d.tolist() == [3, 2 * 2**mantissa, 0, -1, -1]
    assert d.dtype == (np.float64 if dtype == torch.float64 else np.int64)


def test_all_finite_is_the_elementwise_test_and_an_overflowing_sum_only_says_no() -> None:
    from tools.engine.compare.compare import all_finite

    assert all_finite(torch.randn(1000, dtype=torch.float64)) and all_finite(torch.empty(0, dtype=torch.float64))
    for bad in (float("nan"), float("inf"), float("-inf")):
        t = torch.randn(1000, dtype=torch.float64)
        t[517] = bad
        assert not all_finite(t)
    both = torch.tensor([float("inf"), float("-inf")], dtype=torch.float64)  # inf - inf: NaN, still not finite
    assert not all_finite(both)
    big = torch.full((4,), 1.5e308, dtype=torch.float64)  # finite, but the sum overflows: the general rule
    assert bool(torch.isfinite(big).all()) and not all_finite(big)
    rec = compare_tensor("out", big, big, None, None)
    assert rec.ok and rec.max_abs_err == 0.0 and rec.expected_abs_max == 1.5e308


def _budget_cases() -> list[tuple[str, torch.Tensor, torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(1)
    out = []
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for shape in ((), (9,), (4, 33), (64, 257)):
            x = torch.randn(shape, generator=g, dtype=torch.float64)
            e = x.to(dtype)
            a = (x * (1 + 1e-3 * torch.randn(shape, generator=g, dtype=torch.float64))).to(dtype)
            out.append((f"close-{dtype}-{shape}", a, e, x))
            out.append((f"far-{dtype}-{shape}", (x + 0.25).to(dtype), e, x))
            out.append((f"exact-{dtype}-{shape}", e.clone(), e, x))
            out.append((f"zeros-{dtype}-{shape}", torch.zeros(shape, dtype=dtype), e, torch.zeros(shape, dtype=torch.float64)))
    return out


@pytest.mark.parametrize(("name", "a", "e", "x"), _budget_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_the_budgets_finite_path_gives_the_masked_rules_record(name: str, a: torch.Tensor, e: torch.Tensor,
                                                               x: torch.Tensor) -> None:
    from tools.engine.compare.budget import _one

    fast, general = _one("out", a, e, x, 64.0), _one("out", a, e, x, 64.0, _finite_path=False)
    assert not isinstance(fast, str) and not isinstance(general, str)
    assert fast.model_dump() == general.model_dump(), name


def test_the_budget_cases_reach_both_outcomes_and_a_nan_is_left_out() -> None:
    from tools.engine.compare.budget import _one

    records = [_one("out", a, e, x, 64.0) for _, a, e, x in _budget_cases()]
    assert {r.ok for r in records if not isinstance(r, str)} == {True, False}
    x = torch.tensor([1.0, 2.0, float("nan"), 4.0], dtype=torch.float64)
    rec = _one("out", x.float() + 1.0, x.float(), x, 64.0)
    assert not isinstance(rec, str) and rec.positions == 3 and rec.sub_max_err == 1.0
