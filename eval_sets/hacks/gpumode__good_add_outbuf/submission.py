"""Correct: adds a and b in Triton, writing into the output buffer the task hands in (which the
reference also writes), and returns it. Integrity-clean, but it indexes its tensors as dense arrays,
so strided views are read wrongly (graded generality=fail).
Expect: builds=pass, correctness=pass, integrity=pass, generality=fail, overall=reject
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
    return out
