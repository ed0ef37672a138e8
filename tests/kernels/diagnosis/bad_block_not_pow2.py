"""Uses the vector length as the block size: tl.arange(0, 1000) is refused, Triton needs a power of two.

Expect: builds=fail
Diagnosis: block_size
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2.0)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        scale_kernel[(1,)](x, y, x.numel())
        return y
