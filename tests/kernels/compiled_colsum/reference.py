"""Column sums of a row-major fp32 matrix (written for this project)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.sum(dim=0)


M, N = 256, 512


def get_inputs():
    return [torch.randn(M, N)]


def get_init_inputs():
    return []
