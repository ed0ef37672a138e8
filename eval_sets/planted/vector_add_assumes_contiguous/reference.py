"""Element-wise sum of two vectors. Follows the Triton tutorial 01 (vector addition)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x + y


size = 4096


def get_inputs():
    return [torch.randn(size), torch.randn(size)]


def get_init_inputs():
    return []
