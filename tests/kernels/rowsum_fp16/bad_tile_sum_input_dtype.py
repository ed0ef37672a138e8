"""Row tiles summed into a running total kept in the input's dtype, as public reduction kernels often
write it: ``acc = tl.zeros([BLOCK_M], dtype=x_ptr.dtype.element_ty)`` and ``acc += tl.sum(x, axis=1)`` per
column tile. With fp16 inputs every tile's sum is added in fp16; on the nominal randn rows the total
stays small and correctness passes, while on rows whose halves cancel (the cancelling-sum probe) the
running total climbs past 2048, where fp16 keeps only even numbers, before it comes back down (the
x1e3 probe overflows the same total).
Expect: builds=pass, correctness=pass, numerics=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowsum_tiles(x_ptr, y_ptr, n_rows, n_cols, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M], dtype=x_ptr.dtype.element_ty)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=mask, other=0.0)
        acc += tl.sum(x, axis=1)
    tl.store(y_ptr + rows, acc, mask=rows < n_rows)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        m, n = x.shape
        y = torch.empty(m, dtype=x.dtype, device=x.device)
        rowsum_tiles[(triton.cdiv(m, 16),)](x, y, m, n, x.stride(0), BLOCK_M=16, BLOCK_N=512)
        return y
