"""Element-wise logical AND of two float (rows, cols) tensors: a bool output, True where both inputs are
nonzero (``torch.logical_and`` on floats)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.logical_and(a, b)


rows = 16
cols = 1000


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(rows, cols)]


def get_init_inputs():
    return []
