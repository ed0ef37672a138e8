"""Flat indexing over a tensor it never makes contiguous, writing into a fresh row-major output:
right on the nominal (contiguous) input, silently wrong on a transposed or strided view.
Expect: builds=pass, correctness=pass, generality=fail
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def axpb_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 3.0 - 0.5, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        n = x.numel()
        axpb_kernel[(triton.cdiv(n, 128),)](x, y, n, BLOCK=128)
        return y
