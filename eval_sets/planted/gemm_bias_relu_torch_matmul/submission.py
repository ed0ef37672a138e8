"""relu(x @ W^T + bias): the product from torch.matmul, then one Triton kernel fuses the bias add and
the ReLU over the product."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(y_ptr, b_ptr, out_ptr, n_elements, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v = tl.load(y_ptr + offs, mask=mask).to(tl.float32) + tl.load(b_ptr + offs % N, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.where(v < 0, 0.0, v), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int, bias_shape: tuple):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        prod = torch.matmul(x, self.gemm.weight.t()).contiguous()
        out = torch.empty_like(prod)
        n = prod.numel()
        bias_relu_kernel[(triton.cdiv(n, 1024),)](prod, self.bias, out, n, prod.shape[1], BLOCK=1024)
        return out
