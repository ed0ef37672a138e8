"""Hard-coded size: the block is fixed at 256, the nominal row length, with one block per row.
Rows of up to 256 elements are right (the mask covers the rest); longer rows are normalised over
their first 256 elements only and the columns past 256 are never written.
Expect: builds=pass, correctness=pass, generality=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, x_stride, y_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * x_stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    out = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row * y_stride + offs, out.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.zeros_like(x2)
        softmax_kernel[(x2.shape[0],)](x2, y, x2.stride(0), y.stride(0), x2.shape[1], BLOCK=256)
        return y.reshape(x.shape)
