"""LeakyReLU whose slope the task passes to the constructor (KernelBench level1 20_LeakyReLU, with the
slope given through get_init_inputs as level-2 tasks give theirs). The task's slope is PyTorch's
default, 0.01: a kernel that hard-codes the default passes every check on the task's own value."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.leaky_relu(x, negative_slope=self.negative_slope)


batch_size = 16
dim = 1024
negative_slope = 0.01


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [negative_slope]
