"""Hinge loss mean(clamp(1 - predictions * targets, min=0)) with targets in {-1, +1}. Follows
KernelBench level1 100_HingeLoss (same-shaped targets here, no broadcasting)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))


batch_size = 128
dim = 128


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randint(0, 2, (batch_size, dim)).float() * 2 - 1]


def get_init_inputs():
    return []
