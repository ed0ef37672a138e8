"""Output cache keyed on the input's address, reviewed with every runtime check: whether another
check's new input lands at an address the cache has seen used to depend on the child's allocation
history (generality passed in one run and failed in the next, same seed). Inputs handed to the
submission are never at an earlier input's address, so only integrity's in-place probe (same
storage, new content) meets the cache, and it always does. Generality's host-branch coverage lists the
cache-hit branch (`if key in _CACHE`) as kept state (info): integrity's probes are what exercise it.
Expect: builds=pass, correctness=pass, generality=pass, numerics=pass, integrity=fail, overall=reject
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
