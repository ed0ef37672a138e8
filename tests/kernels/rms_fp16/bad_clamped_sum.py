"""Clamps the fp32 sum of squares to fp16's largest value before the square root (a misguided
"overflow guard"): correct at nominal magnitudes, finite but wrong at x1e3 inputs (sqrt(65504/512)
~ 11 instead of ~1e3). The fp16 reference is inf there; float64 judges, and the kernel is wrong.
Expect: builds=pass, correctness=pass, numerics=fail
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_kernel(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
    s = tl.minimum(tl.sum(x * x, axis=0), 65504.0)
    tl.store(y_ptr + row, tl.sqrt(s / n_cols).to(y_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.empty(x2.shape[0], dtype=x.dtype, device=x.device)
        rms_kernel[(x2.shape[0],)](x2, y, x2.stride(0), x2.shape[1], BLOCK=triton.next_power_of_2(x2.shape[1]))
        return y.reshape(x.shape[:-1])
