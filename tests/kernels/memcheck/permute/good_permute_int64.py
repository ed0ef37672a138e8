"""Correct: the same shuffle with the index widened to int64 before the multiply. False-positive
test for the int32 overflow check.
Expect: builds=pass, correctness=pass
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
    src = (offs.to(tl.int64) * p) % n
    tl.store(y_ptr + offs, tl.load(x_ptr + src, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        shuffle_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), P, BLOCK=256)
        return y
