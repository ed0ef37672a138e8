"""Hang off the nominal shape: the launcher walks the input in 256-element chunks and only
advances after a full chunk, so a remainder makes the loop spin forever. The nominal 1024
elements are four full chunks.
Expect: builds=pass, correctness=pass, generality=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2.0 + 1.0)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        flat_x, flat_y = x.view(-1), y.view(-1)
        start, n = 0, x.numel()
        while start < n:
            if n - start >= 256:
                affine_kernel[(1,)](flat_x[start:], flat_y[start:], BLOCK=256)
                start += 256
        return y
