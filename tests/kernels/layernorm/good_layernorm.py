"""Correct Triton layer norm: one program per row held in one block, two-pass statistics (mean,
then the mean of squared deviations) in fp32, masked tail, weight and bias applied.
Expect: builds=pass, correctness=pass, generality=pass, numerics=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = d / tl.sqrt(var + eps) * w + b
    tl.store(y_ptr + row * stride + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.empty_like(x2)
        block = triton.next_power_of_2(x2.shape[1])
        layernorm_kernel[(x2.shape[0],)](x2, self.norm.weight, self.norm.bias, y, x2.stride(0), x2.shape[1],
                                         self.norm.eps, BLOCK=block)
        return y.reshape(x.shape)
