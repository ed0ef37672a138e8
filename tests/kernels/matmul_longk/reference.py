"""Matrix product with a long reduction: (16, 8192) @ (8192, 16). Outputs near zero carry
absolute rounding errors around 1e-5 in fp32, so a correct kernel that sums K in another order
than torch falls outside torch.testing's fp32 table (atol 1e-5, rtol 1.3e-6) on a few elements
while being exactly as accurate as torch against float64."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


m = 16
k = 8192
n = 16


def get_inputs():
    return [torch.randn(m, k), torch.randn(k, n)]


def get_init_inputs():
    return []
