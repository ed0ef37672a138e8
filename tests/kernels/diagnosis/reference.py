"""Scale a vector by two (written for this project): the shared reference of the failure-diagnosis
files, each of which fails in one way a kernel engineer names."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2.0


N = 1000


def get_inputs():
    return [torch.randn(N)]


def get_init_inputs():
    return []
