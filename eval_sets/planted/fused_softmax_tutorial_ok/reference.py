"""Row-wise softmax of an (n_rows, n_cols) matrix. Follows the Triton tutorial 02 (fused softmax)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


n_rows = 128
n_cols = 128


def get_inputs():
    return [torch.randn(n_rows, n_cols)]


def get_init_inputs():
    return []
