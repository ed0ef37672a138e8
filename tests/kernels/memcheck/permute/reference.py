"""A multiplicative shuffle y[i] = x[(i * P) mod n] with P = 1_000_003 (coprime with n = 4096, so
it is a permutation). i * P exceeds 2**31 - 1 from i = 2148 on: index arithmetic must be 64-bit."""

import torch
import torch.nn as nn

P = 1_000_003


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.numel()
        idx = (torch.arange(n, dtype=torch.int64) * P) % n
        return x.reshape(-1)[idx].reshape(x.shape)


n = 4096


def get_inputs():
    return [torch.randn(n)]


def get_init_inputs():
    return []
