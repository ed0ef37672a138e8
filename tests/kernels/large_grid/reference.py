"""Row-wise softmax over the last dim of a (batch, dim) tensor: the large_grid family's reference
(issue 16: kernels wrong or unlaunchable only past 65,535 programs in a grid dimension). One
program per row, so ``batch`` drives the grid."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


batch = 4
dim = 256


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return []
