"""Softmax over very wide rows: every output is ~1/dim, far under KernelBench's atol, so a tensor of
zeros passes allclose (the shape of KernelBench issue #165).

Audit: degenerate; impostor_accepted=zeros
"""
import torch
import torch.nn as nn

batch_size = 2
dim = 1572864


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
