"""Linear layer with a ReLU epilogue, y = relu(x @ W^T + b) (KernelBench level-2 style), small
enough for the CPU interpreter. Shared reference of the integrity_matmul family."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x))


batch_size = 32
in_features = 64
out_features = 48


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
