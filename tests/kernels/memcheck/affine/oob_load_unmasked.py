"""Unmasked load past the end: the load has no mask while the store does; 2400 elements are not a
multiple of BLOCK=256, so the last program reads 160 elements past the end of x (values that are
then dropped by the masked store, so outputs still match).
Expect: builds=pass, correctness=fail, overall=reject
Defects: oob_load
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x * 2.0 + 1.0, mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        affine_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
        return y
