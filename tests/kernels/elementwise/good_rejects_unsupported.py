"""Valid rejection: the kernel has no tail handling and says so, raising ValueError in its own
code for any size that is not a multiple of its block before launching anything. Refusing an
input with a clear error is not a generality failure; every size it accepts is right.
Expect: builds=pass, correctness=pass, generality=pass, numerics=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2.0 + 1.0)


class ModelNew(nn.Module):
    def forward(self, x):
        n = x.numel()
        if n % 256:
            raise ValueError(f"this kernel needs a multiple of 256 elements, got {n}")
        x = x.contiguous()
        y = torch.empty_like(x)
        affine_kernel[(n // 256,)](x, y, BLOCK=256)
        return y
