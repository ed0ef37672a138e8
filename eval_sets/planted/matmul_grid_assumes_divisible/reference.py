"""C = A @ B for A (M, K) and B (K, N) in float32. Follows KernelBench level1
2_Standard_matrix_multiplication_ and the Triton tutorial 03 (matrix multiplication)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 128
K = 96
N = 64


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
