"""Softmax without subtracting the row max: exp(x) overflows to inf once logits pass ~88, and
inf/inf is NaN. Correct on the nominal randn inputs and at every size; the large-magnitude probe
(inputs x1e3) shows it.
Expect: builds=pass, correctness=pass, generality=pass, numerics=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, x_stride, y_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * x_stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
    num = tl.exp(x)
    out = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row * y_stride + offs, out.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.empty_like(x2)
        block = triton.next_power_of_2(x2.shape[1])
        softmax_kernel[(x2.shape[0],)](x2, y, x2.stride(0), y.stride(0), x2.shape[1], BLOCK=block)
        return y.reshape(x.shape)
