"""Online softmax over tiles of at most 512 columns that never rescales its running sum when a later
tile raises the running maximum (``l = l + sum(exp(x - m_new))`` instead of
``l * exp(m_old - m_new) + ...``). The nominal rows of 256 are one tile, so correctness passes. At
dim=513 (twice nominal, plus one) the second tile holds one column, which shows the defect only in a
row whose maximum is that column (about 1 row in 513); the sizes probe's tile and a half (dim=769)
puts the maximum in the second tile in about a third of the rows, and those rows come out too small.
Expect: builds=pass, correctness=pass, generality=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def online_softmax_kernel(x_ptr, y_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_row
    y_row = y_ptr + row * stride_row
    m = tl.full((), -float("inf"), tl.float32)
    l = tl.full((), 0.0, tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(y_row + cols, tl.exp(x - m) / l, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n_rows, n_cols = x.shape
        online_softmax_kernel[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=min(triton.next_power_of_2(n_cols), 512))
        return y
