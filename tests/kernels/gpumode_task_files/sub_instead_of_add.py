"""Triton vector add for the GPU MODE vectoradd task that subtracts instead of adding, shipped with a
utils/ package that would forge the reference if the reference child imported it: it must not, so the
wrong kernel fails correctness against the task's real reference.
Expect: builds=pass, correctness=fail, overall=reject
"""

import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a - b, mask=mask)


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    a, b = a.contiguous(), b.contiguous()
    out = torch.empty_like(a)
    n = a.numel()
    add_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
    return out
