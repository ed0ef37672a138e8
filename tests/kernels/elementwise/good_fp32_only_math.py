"""Correct, with a stated limitation: the kernel calls tl.exp, which Triton defines for fp32 and
fp64 only, so a float16 input fails at trace time with a dtype error. The task is fp32; a dtype it
does not use that is refused loudly is reported as `unsupported_dtype` info by both the generality
dtype axis and the numerics float16 probe, never as a failure. (exp(x) is never negative, so the
tl.where keeps 2x + 1, NaN included.)
Expect: builds=pass, correctness=pass, generality=pass, numerics=pass
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
    y = tl.where(tl.exp(x) < 0.0, 0.0, x * 2.0 + 1.0)
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        affine_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
        return y
