"""Correct: each program builds its block's histogram with tl.histogram and merges it into the global
counts with tl.atomic_add. Atomics from many programs on the same bins are the intended pattern:
the race detector must not flag them.
Expect: builds=pass, correctness=pass
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
    # masked-off lanes were counted in bin 0: take them back out
    local = local - tl.where(tl.arange(0, NUM_BINS) == 0, BLOCK - tl.sum(mask.to(tl.int32), axis=0), 0)
    tl.atomic_add(hist_ptr + tl.arange(0, NUM_BINS), local)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        hist = torch.zeros(NUM_BINS, dtype=torch.int32, device=x.device)
        hist_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, hist, x.numel(), BLOCK=BLOCK, NUM_BINS=NUM_BINS)
        return hist
