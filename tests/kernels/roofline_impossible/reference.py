"""fp32 square matrix product, 1024 x 1024 (written for this project after KernelBench level 1
"Square matrix multiplication"): 2.15 GFLOP, 12.6 MB of minimum traffic."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


N = 1024


def get_inputs():
    return [torch.randn(N, N), torch.randn(N, N)]


def get_init_inputs():
    return []
