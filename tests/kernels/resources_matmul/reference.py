"""Half-precision matrix product (written for this project after KernelBench level 1 "Square matrix
multiplication"), small enough for the Triton interpreter."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


N = 256


def get_inputs():
    return [torch.randn(N, N, dtype=torch.float16), torch.randn(N, N, dtype=torch.float16)]


def get_init_inputs():
    return []
