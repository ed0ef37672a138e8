"""Negative offset: each program loads x[j-1] for every column j with a mask that only bounds the
top (cols < n_cols), then discards column 0's value with tl.where. The outputs are right, but row 0
reads element -1, before the start of x (and every other row reads its neighbour's last element).
Expect: builds=pass, correctness=fail, overall=reject
Defects: oob_load
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def diff_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    base = x_ptr + row * stride
    x = tl.load(base + cols, mask=mask, other=0.0)
    prev = tl.load(base + cols - 1, mask=mask, other=0.0)
    y = tl.where(cols == 0, x, x - prev)
    tl.store(y_ptr + row * stride + cols, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        diff_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
