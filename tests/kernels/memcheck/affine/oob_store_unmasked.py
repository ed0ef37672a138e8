"""Unmasked store past the end: the load is masked but the store is not; 2400 elements are not a
multiple of BLOCK=256, so the last program writes 160 elements past the end of y (heap corruption
on a real run; the sanitizer stops the writes before they happen).
Under the interpreter the writes land in guard zones: the call runs and memcheck fails correctness.
Expect: builds=pass, correctness=fail, overall=reject
Defects: oob_store
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + offs, x * 2.0 + 1.0)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        affine_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
        return y
