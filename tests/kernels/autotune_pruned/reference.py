"""Row-wise L2 normalisation over the head dimension of a (tokens, HEAD_DIM) fp32 tensor (a QK-norm)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / x.norm(dim=-1, keepdim=True)


tokens, head_dim = 256, 64


def get_inputs():
    return [torch.randn(tokens, head_dim)]


def get_init_inputs():
    return []
