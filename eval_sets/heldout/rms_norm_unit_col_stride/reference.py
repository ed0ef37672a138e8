"""RMSNorm over the last axis with a learnable weight (the LLaMA form). Follows the RMSNorm problems of
KernelBench (level1 36_RMSNorm_) and the GPU MODE leaderboards, reduced to a 2-D input."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x * rms * self.weight


batch_size = 32
hidden = 256


def get_inputs():
    return [torch.randn(batch_size, hidden)]


def get_init_inputs():
    return [hidden]
