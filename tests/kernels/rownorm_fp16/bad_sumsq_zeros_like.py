"""Row RMS norm whose accumulator is `tl.zeros_like(x)` of the first block as loaded, so it has the input's
dtype: with float16 inputs of |x| near 100 the running sum of squares passes 65,504 although every square
fits. The static finding must see this spelling too, and the squares-band probe fails it against float64.
Expect: builds=pass, correctness=pass, numerics=fail
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    first = tl.load(x_ptr + row * n_cols + tl.arange(0, BLOCK), mask=tl.arange(0, BLOCK) < n_cols, other=0.0)
    acc = tl.zeros_like(first)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
        acc += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * n_cols + offs, (x * rstd).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        rms_norm_kernel[(x.shape[0],)](x, y, x.shape[1], 1e-6, BLOCK=16)
        return y
