"""Softmax over very wide rows (KernelBench level-1 "Softmax" with a long dim): every output is near
1/dim, about 4e-6, below torch's default fp32 atol of 1e-5, so an allclose with that atol accepts any
answer of the right size. Shared reference of the tiny_outputs family."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 4
dim = 262144


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
