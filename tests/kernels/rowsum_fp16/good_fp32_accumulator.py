"""Correct: the fp16-accumulating row sum's twin with an fp32 accumulator (each chunk upcast before it is
added) and one rounding to fp16 at the store, as torch sums fp16. Every probe stays within budget: the
cancelling-sum probe's rows are summed exactly.
Expect: builds=pass, correctness=pass, numerics=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, y_ptr, stride_m, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride_m + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
    tl.store(y_ptr + row, tl.sum(acc, axis=0).to(y_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        m, n = x.shape
        y = torch.empty(m, dtype=x.dtype, device=x.device)
        rowsum_kernel[(m,)](x, y, x.stride(0), n, BLOCK=256)
        return y
