"""Builds its working layout with .view on a transposed copy of the input: view needs compatible
strides, which a transpose does not have.

Expect: builds=fail
Diagnosis: stride_mismatch
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tiles = x.view(8, 125).t().view(-1)  # column-major order, then a flat view: not possible
        y = torch.empty_like(tiles)
        scale_kernel[(triton.cdiv(x.numel(), 256),)](tiles, y, x.numel(), BLOCK=256)
        return y
