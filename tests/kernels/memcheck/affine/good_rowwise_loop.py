"""Correct: one program per row of a 2-D tile grid, looping over column blocks with pointer
increments and a mask per block; rows and columns strided. False-positive test.
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_affine_kernel(x_ptr, y_ptr, n_rows, n_cols, sx, sy, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    x_ptrs = x_ptr + rows[:, None] * sx + cols[None, :]
    y_ptrs = y_ptr + rows[:, None] * sy + cols[None, :]
    for start in range(0, n_cols, BLOCK):
        mask = (rows[:, None] < n_rows) & (cols[None, :] + start < n_cols)
        x = tl.load(x_ptrs, mask=mask, other=0.0)
        tl.store(y_ptrs, x * 2.0 + 1.0, mask=mask)
        x_ptrs += BLOCK
        y_ptrs += BLOCK


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        r, c = x.shape
        row_affine_kernel[(triton.cdiv(r, 4),)](x, y, r, c, x.stride(0), y.stride(0), ROWS=4, BLOCK=64)
        return y
