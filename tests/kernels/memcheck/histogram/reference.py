"""Histogram of integer bin indices (KernelBench-style problem written for this project): counts of
each value in [0, bins) over a flat int32 tensor, as int32."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.bincount(x, minlength=bins).to(torch.int32)


n = 4096
bins = 64


def get_inputs():
    return [torch.randint(0, bins, (n,), dtype=torch.int32)]


def get_init_inputs():
    return []
