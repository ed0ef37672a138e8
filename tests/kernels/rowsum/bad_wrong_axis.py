"""Wrong reduction axis: the shape is unpacked the wrong way round (``n, m = x.shape``), so the
output has one entry per column and each row sum covers as many elements as there are rows (the
launch is clamped to the smaller dim, so nothing is read out of bounds). On the square nominal
input the two axes have the same length; any non-square input gives the wrong answer.
Expect: builds=pass, correctness=pass, generality=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, y_ptr, stride_m, stride_n, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_m + offs * stride_n, mask=offs < n_cols, other=0.0)
        acc += x.to(tl.float32)
    tl.store(y_ptr + row, tl.sum(acc, axis=0).to(y_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def forward(self, x):
        n, m = x.shape
        y = torch.empty(m, dtype=x.dtype, device=x.device)
        rowsum_kernel[(min(m, n),)](x, y, x.stride(0), x.stride(1), min(m, n), BLOCK=16)
        return y
