"""Integer row sum (int32 in, int32 out), KernelBench style. Written for this project."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=-1, keepdim=True, dtype=torch.int32)


batch_size = 16
dim = 1024


def get_inputs():
    return [torch.randint(-1000, 1000, (batch_size, dim), dtype=torch.int32)]


def get_init_inputs():
    return []
