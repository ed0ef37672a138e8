"""A histogram whose programs merge their block counts with tl.load + tl.store instead of
tl.atomic_add. The interpreter runs programs one after another, so the counts come out right here;
on a GPU the programs run concurrently and read-modify-write the same bins, losing updates.
Expect: builds=pass, correctness=fail
Defects: race
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 512
NUM_BINS = 64


@triton.jit
def hist_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr, NUM_BINS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    local = tl.histogram(x, NUM_BINS)
    local = local - tl.where(tl.arange(0, NUM_BINS) == 0, BLOCK - tl.sum(mask.to(tl.int32), axis=0), 0)
    bins = tl.arange(0, NUM_BINS)
    total = tl.load(hist_ptr + bins)
    tl.store(hist_ptr + bins, total + local)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        hist = torch.zeros(NUM_BINS, dtype=torch.int32, device=x.device)
        hist_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, hist, x.numel(), BLOCK=BLOCK, NUM_BINS=NUM_BINS)
        return hist
