"""Row softmax launched as ``grid=(1, n_rows)``: rows on grid dimension y, which CUDA limits to
65,535 programs. Past 65,535 rows a GPU refuses the launch (the CPU interpreter would run it); the
virtual device refuses it as the GPU does.
Expect: builds=pass, correctness=pass, generality=fail
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, x_stride, y_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(1).to(tl.int64)
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
        softmax_kernel[(1, x2.shape[0])](x2, y, x2.stride(0), y.stride(0), x2.shape[1],
                                         BLOCK=triton.next_power_of_2(x2.shape[1]))
        return y.reshape(x.shape)
