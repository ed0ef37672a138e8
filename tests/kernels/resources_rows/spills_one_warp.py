"""A correct row softmax that holds a whole 8192-wide row in ONE warp (256 values per thread): the
values cannot stay in registers, and ptxas spills them to local memory on sm_90 and sm_80. A spill
is a performance concern (a warning finding in the draft), not a defect: the kernel launches and is
correct, so resources passes and nothing rejects it.

Expect: builds=pass, correctness=pass, resources=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_softmax(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        row_softmax[(x.shape[0],)](out, x, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]), num_warps=1)
        return out
