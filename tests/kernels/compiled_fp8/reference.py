"""An FP8 (e4m3) matrix product with fp32 output (written for this project): the inputs are
already quantised, and the product is exact up to fp32 accumulation."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a.float() @ b.float()


N = 64


def get_inputs():
    return [torch.randn(N, N).to(torch.float8_e4m3fn), torch.randn(N, N).to(torch.float8_e4m3fn)]


def get_init_inputs():
    return []
