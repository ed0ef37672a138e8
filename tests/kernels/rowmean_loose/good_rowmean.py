"""Correct Triton row mean: fp32 accumulator vector over BLOCK-wide chunks, masked tail, divided
by the row length at the end.
Expect: builds=pass, correctness=pass, generality=pass, numerics=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowmean_kernel(x_ptr, y_ptr, stride_m, stride_n, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_m + offs * stride_n, mask=offs < n_cols, other=0.0)
        acc += x.to(tl.float32)
    tl.store(y_ptr + row, (tl.sum(acc, axis=0) / n_cols).to(y_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def forward(self, x):
        m, n = x.shape
        y = torch.empty(m, dtype=x.dtype, device=x.device)
        rowmean_kernel[(m,)](x, y, x.stride(0), x.stride(1), n, BLOCK=1024)
        return y
