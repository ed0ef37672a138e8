"""out = alpha * a + b on a (batch, dim) fp32 tensor (KernelBench level-1 style elementwise problem,
written for this project). dim is odd, so numel is not a multiple of any power-of-two block."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return self.alpha * a + b


batch_size = 16
dim = 16387
alpha = 0.5


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return [alpha]
