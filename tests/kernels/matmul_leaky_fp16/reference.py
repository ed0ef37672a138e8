"""Matmul, scale, bias and LeakyReLU on fp16 activations of large magnitude (|x| ~ 64, KernelBench level-2
style), computed by the reference in fp16: a @ b passes fp16's 65504 at some positions and the reference's
intermediate overflows to +-inf there, although the exact result after the 0.25 scale (~2e4) is finite in
fp16; elsewhere its four fp16 roundings put a few elements outside fp16's default tolerance of a kernel
that keeps the epilogue in fp32."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, scale: float, negative_slope: float):
        super().__init__()
        self.scale = scale
        self.negative_slope = negative_slope

    def forward(self, a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.leaky_relu((a @ b) * self.scale + bias, self.negative_slope)


M, K, N = 64, 32, 64
scale = 0.25
negative_slope = 0.01


def get_inputs():
    return [torch.randn(M, K, dtype=torch.float16) * 64, torch.randn(K, N, dtype=torch.float16) * 64,
            torch.randn(N, dtype=torch.float16)]


def get_init_inputs():
    return [scale, negative_slope]
