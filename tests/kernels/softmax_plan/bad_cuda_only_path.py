"""Softmax whose host code takes another path on a GPU: ``if x.is_cuda:`` launches a variant that
drops the max subtraction (wrong for large logits), while on a CPU the correct kernel runs. A
CPU-only review cannot see the GPU path: the branch is reported with its line and generality stays
unverified, so the review does not accept.
Expect: builds=pass, correctness=pass, generality=unverified, overall=needs_human
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, x_stride, y_stride, n_cols, BLOCK: tl.constexpr, SUB_MAX: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * x_stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
    if SUB_MAX:
        x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    out = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row * y_stride + offs, out.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.empty_like(x2)
        block = triton.next_power_of_2(x2.shape[1])
        if x.is_cuda:
            fast = True
        else:
            fast = False
        softmax_kernel[(x2.shape[0],)](x2, y, x2.stride(0), y.stride(0), x2.shape[1], BLOCK=block, SUB_MAX=not fast)
        return y.reshape(x.shape)
