"""y = 3x - 0.5 on a 2-D tensor whose size is not a multiple of any power-of-two block: the
reference for kernels whose defects only an off-nominal probe (layout, size) can expose."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 3.0 - 0.5


rows = 6
cols = 200


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
