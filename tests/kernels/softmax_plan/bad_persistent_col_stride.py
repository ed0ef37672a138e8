"""Persistent-loop softmax that assumes column stride 1: a fixed number of programs loop over the
rows, honouring the row stride it is given but reading columns at ``offs`` (stride 1). Correct for
contiguous inputs and for row-strided ones at every size; a transposed or last-dim-strided input is
read as if it were contiguous (max error ~1). The generality plan runs every layout before any size,
so the two layouts that fail are always tried, whatever the machine's load.
Expect: builds=pass, correctness=pass, generality=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

NUM_PROGRAMS = 4


@triton.jit
def softmax_persistent(x_ptr, y_ptr, x_row_stride, y_row_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    start = tl.program_id(0)
    step = tl.num_programs(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    for row in range(start, n_rows, step):
        x = tl.load(x_ptr + row * x_row_stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        out = num / tl.sum(num, axis=0)
        tl.store(y_ptr + row * y_row_stride + offs, out.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        rows, cols = x.shape
        y = torch.empty(rows, cols, dtype=x.dtype, device=x.device)
        grid = (min(rows, NUM_PROGRAMS),)
        softmax_persistent[grid](x, y, x.stride(0), y.stride(0), rows, cols, BLOCK=triton.next_power_of_2(cols))
        return y
