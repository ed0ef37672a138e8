"""C = A @ B, with A given transposed (A_T of shape [K, M]) as the NKI Tensor Engine wants it."""

import torch


def make_inputs(seed, M, K, N):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(K, M, generator=g), torch.randn(K, N, generator=g)]


def reference(a_t, b):
    return a_t.T @ b
