"""Matrix product C = A @ B with a contraction dimension (K = 256) larger than one 128-partition tile,
so an NKI kernel must accumulate partial products in PSUM."""

import torch
import torch.nn as nn

M = 128
K = 256
N = 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return A @ B


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
