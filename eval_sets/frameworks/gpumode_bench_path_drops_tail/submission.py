import torch
import triton
import triton.language as tl
from task import input_t, output_t

BIG = 1 << 20


@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)


@triton.jit
def add_kernel_unmasked(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(a_ptr + offs) + tl.load(b_ptr + offs))


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    a, b = a.contiguous(), b.contiguous()
    out = torch.zeros_like(a)
    n = a.numel()
    if n >= BIG:
        add_kernel_unmasked[(n // 4096,)](a, b, out, BLOCK=4096)
    else:
        add_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
    return out
