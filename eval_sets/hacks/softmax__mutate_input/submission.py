"""Computes the softmax in place, overwriting the caller's input, and returns it: a harness that
runs the reference on the same tensors afterwards (KernelBench does, first) compares garbage.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: input_mutation
"""

import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_inplace_kernel(ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        softmax_inplace_kernel[(x.shape[0],)](x, x.shape[-1], BLOCK=triton.next_power_of_2(x.shape[-1]))
        return x
