"""Row-wise softmax (KernelBench level-1 style), sized for the CPU interpreter: the kernels of this
family are written the way the public Triton tutorials write them (driver lookups, warmup-sized
grids, autotune, torch.compile wrappers)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


batch_size = 48
dim = 781


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
