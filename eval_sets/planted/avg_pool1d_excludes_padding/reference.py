"""1-D average pooling over (batch, channels, length); padded zeros count in the average
(count_include_pad=True, the nn.AvgPool1d default). Follows KernelBench level1 44_Average_Pooling_1D."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


batch_size = 4
channels = 8
length = 128
kernel_size = 4
stride = 2
padding = 1


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return [kernel_size, stride, padding]
