"""Missing tail: the grid is n // BLOCK programs (rounded down), so when n is not a multiple of
BLOCK the last n % BLOCK elements are never written. The nominal 1024 elements are a multiple of
BLOCK=256, so correctness on the nominal shape passes; no access is out of bounds (masks are
right), only the tail block is never launched.
Expect: builds=pass, correctness=pass, generality=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2.0 + 1.0, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.zeros_like(x)
        n = x.numel()
        if n >= 256:
            affine_kernel[(n // 256,)](x, y, n, BLOCK=256)
        return y
