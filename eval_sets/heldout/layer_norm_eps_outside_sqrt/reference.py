"""LayerNorm over the last axis with learnable weight and bias. Follows KernelBench level1 40_LayerNorm
(normalized_shape reduced to one axis for the CPU interpreter)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


batch_size = 16
features = 384


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [(features,)]
