"""Sum over the last dim of an (m, n) matrix; nominal m = n = 32, a square input on which a kernel
that confuses the two dims cannot be told from a correct one."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=1)


m = 32
n = 32


def get_inputs():
    return [torch.randn(m, n)]


def get_init_inputs():
    return []
