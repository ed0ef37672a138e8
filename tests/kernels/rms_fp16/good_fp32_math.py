"""Correct: squares and sums in fp32, stores fp16. At x1e3 inputs the fp16 reference overflows to inf
while this kernel matches float64 (~1e3): float64 judges those positions, so numerics passes and
the evidence says the reference was inexact.
Expect: builds=pass, correctness=pass, numerics=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_kernel(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
    tl.store(y_ptr + row, tl.sqrt(tl.sum(x * x, axis=0) / n_cols).to(y_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.empty(x2.shape[0], dtype=x.dtype, device=x.device)
        rms_kernel[(x2.shape[0],)](x2, y, x2.stride(0), x2.shape[1], BLOCK=triton.next_power_of_2(x2.shape[1]))
        return y.reshape(x.shape[:-1])
