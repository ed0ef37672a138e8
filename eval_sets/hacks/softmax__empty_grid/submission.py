"""A launch that does nothing: the grid is computed from a block count that rounds down to zero,
so no program instance runs and the output buffer keeps whatever torch.empty left in it.
Expect: builds=pass, integrity=fail
Defect: empty_launch
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.zeros_like(x)
        rows = x.shape[0] // 64  # 16 rows -> 0 programs
        softmax_kernel[(rows,)](out, x, x.shape[-1], BLOCK=triton.next_power_of_2(x.shape[-1]))
        return out
