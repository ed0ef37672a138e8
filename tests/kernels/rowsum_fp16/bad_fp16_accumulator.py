"""The running sums are kept in fp16: ``acc = tl.zeros([BLOCK], dtype=tl.float16)``, each chunk added to
it in fp16. On the nominal randn rows the error (about 0.17) sits under one fp16 ULP of the largest row
sum (0.22), so correctness passes. On rows whose halves cancel exactly (the numerics cancelling-sum
probe) each lane's partial sums pass a few units, where fp16 rounds every addition, while an fp32
accumulator is exact: the row sums miss the float64 ones by over a hundred times the output's ULP.
Expect: builds=pass, correctness=pass, numerics=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, y_ptr, stride_m, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float16)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride_m + offs, mask=offs < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        m, n = x.shape
        y = torch.empty(m, dtype=x.dtype, device=x.device)
        rowsum_kernel[(m,)](x, y, x.stride(0), n, BLOCK=256)
        return y
