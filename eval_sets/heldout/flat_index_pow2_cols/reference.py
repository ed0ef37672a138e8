"""Add a per-column bias, then ReLU: the epilogue of KernelBench level2 76_Gemm_Add_ReLU on its own."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, out_features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.bias)


batch_size = 64
out_features = 128


def get_inputs():
    return [torch.randn(batch_size, out_features)]


def get_init_inputs():
    return [out_features]
