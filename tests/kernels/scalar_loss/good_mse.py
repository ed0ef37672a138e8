"""Correct: per-block partial sums of squared differences in Triton, summed on the host side.
Expect: builds=pass, correctness=pass, integrity=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sq_diff_sum(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    d = tl.load(a_ptr + offs, mask=mask, other=0.0) - tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + pid, tl.sum(d * d, axis=0))


class ModelNew(nn.Module):
    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        n = a.numel()
        grid = triton.cdiv(n, 1024)
        partial = torch.empty(grid, dtype=a.dtype, device=a.device)
        sq_diff_sum[(grid,)](a, b, partial, n, BLOCK=1024)
        return partial.sum() / n
