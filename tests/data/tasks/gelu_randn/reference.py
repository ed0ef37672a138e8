"""GELU on standard-normal inputs: both signs, a continuous spread. A sound task.

Audit: sound
"""
import torch
import torch.nn as nn

batch_size = 16
dim = 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.nn.functional.gelu(x)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
