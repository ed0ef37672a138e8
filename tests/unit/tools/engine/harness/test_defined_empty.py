"""Inputs made with torch.empty/numpy.empty are poison-filled while a case is made
(tools/engine/harness/defined_empty.py), so a case's inputs depend on its seed alone."""

from __future__ import annotations

import numpy as np
import torch

from tools.engine.harness.defined_empty import defined_empty


def test_empty_allocations_are_poison_filled_only_inside_the_block() -> None:
    originals = (torch.empty, torch.empty_like, torch.empty_strided, torch.Tensor.new_empty, np.empty, np.empty_like)
    with defined_empty():
        assert torch.isnan(torch.empty(4, 5)).all()
        assert torch.isnan(torch.empty_like(torch.zeros(3, dtype=torch.float16))).all()
        assert torch.isnan(torch.empty_strided((2, 3), (1, 2))).all()
        assert (torch.zeros(2).new_empty((3,), dtype=torch.int32) == -1).all()
        assert (torch.empty(3, dtype=torch.uint8) == 255).all()
        assert torch.empty(2, dtype=torch.bool).all()
        assert np.isnan(np.empty((2, 2))).all() and (np.empty_like(np.zeros(3, dtype=np.int64)) == -1).all()
        assert torch.empty(0).numel() == 0
    assert (torch.empty, torch.empty_like, torch.empty_strided, torch.Tensor.new_empty, np.empty,
            np.empty_like) == originals


def test_a_gpumode_output_buffer_is_the_same_on_every_make() -> None:
    def generate_input(size: int) -> tuple[torch.Tensor, torch.Tensor]:
        torch.manual_seed(0)
        return torch.randn(size, size), torch.empty(size, size)

    # freed memory that holds an "answer" is what a plain torch.empty would hand back
    for _ in range(3):
        torch.full((64, 64), 3.0)
    with defined_empty():
        first = generate_input(64)
    with defined_empty():
        second = generate_input(64)
    assert torch.equal(first[0], second[0])
    assert torch.isnan(first[1]).all() and torch.isnan(second[1]).all()
