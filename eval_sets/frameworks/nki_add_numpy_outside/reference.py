"""Element-wise addition of two matrices (KernelBench-style reference for the NKI tensor-add example).

The row count is deliberately not a multiple of 128, the partition limit of an NKI tile."""

import torch
import torch.nn as nn

rows = 300
cols = 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a + b


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(rows, cols)]


def get_init_inputs():
    return []
