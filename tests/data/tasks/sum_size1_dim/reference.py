"""A sum over a dimension of size 1: the reduction is trivial at the nominal shape, so a kernel that
copies its input (never reducing) is exact.

Audit: degenerate; size1_dim, impostor_accepted=input 0 passed through
"""
import torch
import torch.nn as nn

batch_size = 16
reduce_dim = 1
dim = 4096


class Model(nn.Module):
    def forward(self, x):
        return torch.sum(x, dim=1)


def get_inputs():
    return [torch.randn(batch_size, reduce_dim, dim)]


def get_init_inputs():
    return []
