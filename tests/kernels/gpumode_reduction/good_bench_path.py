"""Correct: the same leaderboard-style fast path (from 2^20 elements, only the benchmark sizes: full
8192-element blocks unmasked, the tail summed on the host as x[full * BLOCK:]). The benchmark path is run
at the smallest size past its threshold and passes.
Expect: builds=pass, correctness=pass, generality=pass
"""

import torch
import triton
import triton.language as tl
from task import input_t, output_t

BIG = 1 << 20
BLOCK = 8192


@triton.jit
def partial_sums(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + tl.program_id(0), tl.sum(x, axis=0))


@triton.jit
def partial_sums_unmasked(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + tl.program_id(0), tl.sum(tl.load(x_ptr + offs), axis=0))


def custom_kernel(data: input_t) -> output_t:
    x = data.contiguous()
    n = x.numel()
    if n >= BIG:
        full = n // BLOCK
        partial = torch.empty(full, dtype=torch.float32, device=x.device)
        partial_sums_unmasked[(full,)](x, partial, BLOCK=BLOCK)
        tail = x[full * BLOCK:]
        return partial.sum() + tail.sum()
    partial = torch.empty(triton.cdiv(n, BLOCK), dtype=torch.float32, device=x.device)
    partial_sums[(triton.cdiv(n, BLOCK),)](x, partial, n, BLOCK=BLOCK)
    return partial.sum()
