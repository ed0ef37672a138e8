"""Size threshold: rows wider than 256 columns go to torch.nn.functional.softmax, and the
benchmark's 300 columns are past it; only narrow rows use the Triton kernel.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: library_compute
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
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
        n = x.shape[-1]
        if n > 256:
            return F.softmax(x, dim=-1)
        x = x.contiguous()
        out = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](out, x, n, BLOCK=triton.next_power_of_2(n))
        return out
