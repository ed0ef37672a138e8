"""Matrix product of two standard-normal matrices. A sound task.

Audit: sound
"""
import torch
import torch.nn as nn

M = 256
K = 256
N = 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
