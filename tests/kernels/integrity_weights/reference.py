"""Per-feature scale and shift with random parameters, y = x * weight + bias (KernelBench level-1 style:
the parameters come from ``torch.randn`` in ``__init__``, so a reference built under another seed than
the submission's has other weights). Shared reference of the integrity_weights family."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(features))
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.weight + self.bias


batch_size = 16
features = 64


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
