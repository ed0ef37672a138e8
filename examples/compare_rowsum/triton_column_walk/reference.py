"""Sum over the last dimension, keeping it (KernelBench level-1 style problem, written for this
project after the public "Sum reduction over a dimension" problem definition)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=-1, keepdim=True)


batch_size = 64
dim = 2048


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
