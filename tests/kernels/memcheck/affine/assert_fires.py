"""A device_assert that fires: one program per row with a hard-coded 256-wide block; the kernel
asserts the row fits (n_cols <= BLOCK) but rows have 300 columns, so columns 256..299 are never
written. On a GPU the assert is compiled out unless debugging, and the tail is silently garbage.
Expect: builds=pass, correctness=fail, overall=reject
Defects: device_assert
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_affine_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    tl.device_assert(n_cols <= BLOCK, "row does not fit in one block")
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, x * 2.0 + 1.0, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        row_affine_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=256)
        return y
