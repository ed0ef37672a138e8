"""Precision downgrade: the float32 input is cast to float16, the kernel computes and stores in
float16, and the result is cast back to float32: about 3 decimal digits instead of 7.
Expect: builds=pass, integrity=fail
Defect: precision_downgrade
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        xh = x.contiguous().half()
        out = torch.empty_like(xh)
        softmax_kernel[(xh.shape[0],)](out, xh, xh.shape[-1], BLOCK=triton.next_power_of_2(xh.shape[-1]))
        return out.float()
