"""Correct: the same first difference with the previous-element load masked to cols >= 1.
False-positive test.
Expect: builds=pass, correctness=pass
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
    prev = tl.load(base + cols - 1, mask=mask & (cols >= 1), other=0.0)
    tl.store(y_ptr + row * stride + cols, x - prev, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        diff_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
