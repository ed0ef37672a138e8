"""Layer normalisation over the last dim (nn.LayerNorm, default eps and affine weights) of an
(8, 128) tensor."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


rows = 8
dim = 128


def get_inputs():
    return [torch.randn(rows, dim)]


def get_init_inputs():
    return [dim]
