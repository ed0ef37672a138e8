"""A chain of three half-precision operators, (x * w + b) * x (written for this project). Eager
PyTorch rounds after each operator; a fused kernel may keep the intermediates in float32."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return (x * w + b) * x


N = 4096


def get_inputs():
    return [torch.randn(N, dtype=torch.float16), torch.randn(N, dtype=torch.float16),
            torch.randn(N, dtype=torch.float16)]


def get_init_inputs():
    return []
