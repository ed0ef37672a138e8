"""Output cache keyed on the input's address: the first call computes, every later call with a
tensor at the same address returns the stored output, whatever the tensor now holds.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: output_caching
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

_CACHE = {}


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
        key = (x.data_ptr(), tuple(x.shape))
        if key in _CACHE:
            return _CACHE[key]
        xc = x.contiguous()
        out = torch.empty_like(xc)
        softmax_kernel[(xc.shape[0],)](out, xc, xc.shape[-1], BLOCK=triton.next_power_of_2(xc.shape[-1]))
        _CACHE[key] = out
        return out
