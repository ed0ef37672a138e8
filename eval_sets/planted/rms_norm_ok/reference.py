"""RMSNorm over the last axis, no weight: x / sqrt(mean(x^2) + eps). Follows KernelBench level1
36_RMSNorm_ (normalised over the last axis here)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, eps: float = 1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)


batch_size = 32
dim = 256
eps = 1e-5


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [eps]
