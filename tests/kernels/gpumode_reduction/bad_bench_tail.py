"""GPU MODE vector sum with a leaderboard-style fast path: from 2^20 elements (only the benchmark sizes)
it sums full 8192-element blocks with an unmasked kernel and adds the tail x[-(n % 8192):] on the host;
when n is a multiple of 8192 (both benchmark sizes) that slice is the whole vector, so the sum is counted
twice. Every test size takes the masked path, which is correct; the benchmark path must still be run
(one program per 8192 elements: about 128 programs at 2^20) and caught.
Expect: builds=pass, correctness=pass, generality=fail
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
        return partial.sum() + x[-(n % BLOCK):].sum()
    partial = torch.empty(triton.cdiv(n, BLOCK), dtype=torch.float32, device=x.device)
    partial_sums[(triton.cdiv(n, BLOCK),)](x, partial, n, BLOCK=BLOCK)
    return partial.sum()
