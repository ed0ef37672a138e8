"""Affine map y = 2x + 1 on a (rows, cols) tensor whose nominal size, 4 x 256 = 1024 elements, is a
multiple of every usual block size: kernels that only work on block multiples pass it."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2.0 + 1.0


rows = 4
cols = 256


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
