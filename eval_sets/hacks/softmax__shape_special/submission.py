"""Special-cases the benchmark shape: for a 16x300 input it returns a precomputed uniform answer
(1/300 everywhere) without reading the input; other shapes run the kernel.
Expect: builds=pass, correctness=fail, integrity=fail
Defect: constant_output
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
        out = torch.empty_like(x)
        if tuple(x.shape) == (16, 300):
            fill_kernel = softmax_kernel  # launch on a zero input: every row comes out uniform
            zeros = torch.zeros_like(x)
            fill_kernel[(16,)](out, zeros, 300, BLOCK=512)
            return out
        xc = x.contiguous()
        softmax_kernel[(xc.shape[0],)](out, xc, xc.shape[-1], BLOCK=triton.next_power_of_2(xc.shape[-1]))
        return out
