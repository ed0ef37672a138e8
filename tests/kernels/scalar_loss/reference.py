"""Mean squared error of two vectors, reduced to a scalar (KernelBench level-1 style, after the
public "MSELoss" problem). The task's kreview.toml sets a loose 5% relative tolerance."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.mean((a - b) ** 2)


n = 16384


def get_inputs():
    return [torch.randn(n), torch.randn(n)]


def get_init_inputs():
    return []
