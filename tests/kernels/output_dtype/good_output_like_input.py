"""Correct: the output is allocated in the input's dtype (``dtype=x.dtype``), accumulated in fp32 and cast
on the store. False-positive test for the output-dtype check and for the fixer (no patch).
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mean_kernel(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
    tl.store(y_ptr + row, (tl.sum(acc, axis=0) / n_cols).to(y_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.empty(x2.shape[0], dtype=x.dtype, device=x.device)
        mean_kernel[(x2.shape[0],)](x2, y, x2.stride(0), x2.shape[1], BLOCK=256)
        return y.reshape(x.shape[:-1])
