"""int32 index overflow: the source index i * P is computed in int32; from i = 2148 on it exceeds
2**31 - 1 and wraps negative, so (i * P) % n is negative and the load reads before the start of x
(for larger n the wrapped index can also land inside x: silently wrong data). Memory stays small:
the overflow comes from the multiplier, not from a huge tensor.
Expect: builds=pass, correctness=fail, overall=reject
Defects: int32_overflow, oob_load
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

P = 1_000_003


@triton.jit
def shuffle_kernel(x_ptr, y_ptr, n, p, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    src = (offs * p) % n
    tl.store(y_ptr + offs, tl.load(x_ptr + src, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        shuffle_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), P, BLOCK=256)
        return y
