"""Mean over the last dim of an (8, 4096) tensor, with a loose tolerance (atol = rtol = 0.1,
below): the outputs are small (std ~0.016), so zeros and a low-precision accumulator both sit
inside the tolerance, as they do in harnesses that compare with atol 1e-2."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.mean(x, dim=1)


rows = 8
cols = 4096


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
