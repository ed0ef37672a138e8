"""Row softmax whose row index wraps at 65,536 programs (``program_id(0) % 65536``, as a 16-bit
index would): rows past 65,535 are never written, and program 65,536 rewrites row 0. Every size a
review usually runs has fewer rows; the crossing past 65,535 rows shows program 65,536 storing
exactly what program 0 stores.
Expect: builds=pass, correctness=pass, generality=fail
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, x_stride, y_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0) % 65536
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * x_stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(y_ptr + row * y_stride + offs, (num / tl.sum(num, axis=0)).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.empty_like(x2)
        softmax_kernel[(x2.shape[0],)](x2, y, x2.stride(0), y.stride(0), x2.shape[1],
                                       BLOCK=triton.next_power_of_2(x2.shape[1]))
        return y.reshape(x.shape)
