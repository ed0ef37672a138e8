"""Contiguity assumption: the row pitch is taken as the row length (``row * n_cols``) and the input
is used as given, so a transposed or strided input is read as if it were contiguous. Correct for
the contiguous nominal input at every size.
Expect: builds=pass, correctness=pass, generality=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    out = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row * n_cols + offs, out, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        rows, cols = x.shape
        y = torch.empty(rows, cols, dtype=x.dtype, device=x.device)
        softmax_kernel[(rows,)](x, y, cols, BLOCK=triton.next_power_of_2(cols))
        return y
