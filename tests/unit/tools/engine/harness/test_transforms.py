"""Input transforms used by the numerics and generality probes."""

from __future__ import annotations

import pytest
import torch

from tools.engine.harness import transforms
from tools.engine.harness.case import Transform


def _one(x: torch.Tensor, kind: str, **args: object) -> torch.Tensor:
    return transforms.apply([x], [Transform(kind=kind, args=dict(args))])[0]


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-0", "subnormal"])
def test_inject_sets_exactly_count_positions_reproducibly(value: str) -> None:
    x = torch.randn(6, 7) + 5.0  # no zeros, no specials
    y = _one(x, "inject", value=value, count=5, seed=3)
    assert y.shape == x.shape and y.dtype == x.dtype and y.is_contiguous()
    changed = (y.view(torch.int32) != x.view(torch.int32))
    assert int(changed.sum()) == 5
    assert torch.equal(y.view(torch.int32), _one(x, "inject", value=value, count=5, seed=3).view(torch.int32))
    picked = y[changed]
    if value == "nan":
        assert torch.isnan(picked).all()
    elif value in ("inf", "-inf"):
        assert (picked == float(value)).all()
    elif value == "-0":
        assert (picked == 0).all() and torch.signbit(picked).all()
    else:
        tiny = torch.finfo(torch.float32).tiny
        assert ((picked.abs() > 0) & (picked.abs() < tiny)).all()


def test_inject_leaves_integers_and_knows_fp16_subnormals() -> None:
    ints = torch.arange(10)
    assert torch.equal(_one(ints, "inject", value="nan", count=3), ints)
    half = _one(torch.ones(16, dtype=torch.float16), "inject", value="subnormal", count=4, seed=1)
    small = half[half != 1]
    assert small.numel() == 4 and (small < torch.finfo(torch.float16).tiny).all() and (small > 0).all()
    with pytest.raises(ValueError, match="unknown special value"):
        _one(torch.ones(3), "inject", value="huge")


def test_expand_is_a_stride_zero_view_of_the_first_row() -> None:
    x = torch.randn(4, 5)
    y = _one(x, "expand")
    assert y.stride(0) == 0 and y.shape == x.shape
    assert torch.equal(y, x[:1].expand(4, 5))
    v = torch.randn(5)
    assert _one(v, "expand") is v


def test_layout_transforms_keep_values_and_change_strides() -> None:
    x = torch.randn(3, 8)
    for kind, args in (("transpose_layout", {}), ("strided_slice", {"dim": 0}), ("strided_slice", {"dim": -1}),
                       ("storage_offset", {"offset": 1})):
        y = _one(x, kind, **args)
        assert torch.equal(y, x)
        assert (not y.is_contiguous()) or y.storage_offset() == 1


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_simplify_values_levels_keep_shape_and_are_exact(dtype: torch.dtype) -> None:
    x = (torch.randn(3, 5) * 3).to(dtype)
    ones = _one(x, "simplify_values", level="ones")
    ints = _one(x, "simplify_values", level="integers")
    halves = _one(x, "simplify_values", level="halves")
    assert all(t.shape == x.shape and t.dtype == dtype and t.is_contiguous() for t in (ones, ints, halves))
    assert (ones == 1).all()
    assert torch.equal(ints, torch.round(x)) and (ints.float() == ints.float().round()).all()
    assert ((halves.float() * 2) == (halves.float() * 2).round()).all()
    assert (halves.float() - x.float()).abs().max() <= 0.25 + 1e-2
    idx = torch.arange(4)
    assert torch.equal(_one(idx, "simplify_values", level="ones"), idx)  # integer inputs untouched
    with pytest.raises(ValueError, match="unknown simplify_values level"):
        _one(x, "simplify_values", level="zeros")


@pytest.mark.parametrize(("shape", "dtype"), [((64, 8192), torch.float16), ((4, 7), torch.float32),
                                              ((3, 1 << 16), torch.bfloat16)])
def test_mirror_halves_sums_exactly_in_fp32_whatever_the_order(shape: tuple[int, ...], dtype: torch.dtype) -> None:
    x = _one(torch.zeros(shape, dtype=dtype), "mirror_halves", seed=3)
    assert x.shape == shape and x.dtype == dtype
    exact = x.double().sum(-1)
    half = shape[-1] // 2
    assert torch.equal(x[..., half + shape[-1] % 2 + 1:], -x[..., 1:half])  # mirrored, negated
    assert ((exact >= 1) & (exact < 2)).all()  # a row sums to twice its first value
    a = x.float()
    for total in (a.sum(-1), a.flip(-1).cumsum(-1)[..., -1], a.cumsum(-1)[..., -1],
                  a.reshape(*shape[:-1], -1, 2 if shape[-1] % 2 == 0 else 1).sum(-2).sum(-1)):
        assert torch.equal(total.double(), exact)


def test_mirror_halves_rounds_in_a_16_bit_running_sum() -> None:
    """fp16 lanes, as a BLOCK=256 Triton accumulator over 64 x 8192: past the error budget's 64 ULPs."""
    x = _one(torch.zeros(64, 8192, dtype=torch.float16), "mirror_halves", seed=1)
    acc = torch.zeros(64, 256, dtype=torch.float16)
    for chunk in x.split(256, dim=1):
        acc = acc + chunk
    exact = x.double().sum(1)
    err = (acc.double().sum(1) - exact).abs().max()
    assert err > 64 * torch.finfo(torch.float16).eps * exact.abs().max()
