"""Row sums of a 512 x 1024 matrix, kept as a column: y = x.sum(dim=1, keepdim=True)."""

import torch
import torch.nn as nn

rows = 512
cols = 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum(dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
