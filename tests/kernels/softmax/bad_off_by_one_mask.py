"""Off-by-one load mask: ``offs <= n_cols`` lets one lane past the row end in (the first element
of the next row; one element past the tensor for the last row, a read that stays inside the
allocation's padding). The store mask is right. With the nominal dim=256 the block is exactly the
row, so the extra lane does not exist; for other row lengths each row's softmax includes a
neighbour's value.
Expect: builds=pass, correctness=pass, generality=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, x_stride, y_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * x_stride + offs, mask=offs <= n_cols, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    out = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row * y_stride + offs, out.to(y_ptr.dtype.element_ty), mask=offs < n_cols)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.empty_like(x2)
        block = triton.next_power_of_2(x2.shape[1])
        softmax_kernel[(x2.shape[0],)](x2, y, x2.stride(0), y.stride(0), x2.shape[1], BLOCK=block)
        return y.reshape(x.shape)
