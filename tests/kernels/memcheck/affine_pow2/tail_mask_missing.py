"""Missing tail mask with a block-multiple nominal shape: 8 x 256 = 2048 elements is a multiple of
BLOCK=256, so the nominal case is exact; any size that is not a multiple (e.g. 7 x 255) reads and
writes past the end of x and y.
Expect: builds=pass, correctness=pass, generality=fail
Defects: oob_load, oob_store
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x * 2.0 + 1.0)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        affine_kernel[(triton.cdiv(x.numel(), 256),)](x, y, BLOCK=256)
        return y
