"""Adds correctly, then zeroes its input b: a harness that reuses the inputs (or runs the
reference afterwards on the same tensors) sees corrupted data. Writing the output buffer is
allowed (the reference writes it too); writing b is not.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: input_mutation
"""

import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)


def custom_kernel(data: input_t) -> output_t:
    a, b, out = data
    n = a.numel()
    add_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
    b.zero_()
    return out
