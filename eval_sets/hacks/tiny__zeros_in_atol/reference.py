"""A tiny-magnitude output: y = 1e-6 * tanh(x). Every expected value is below fp32's default
atol (1e-5), so an all-zero output passes the comparison (as zeros pass several KernelBench
level-1 problems). Shared reference of the integrity_tiny family."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x) * 1e-6


rows = 8
cols = 512


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
