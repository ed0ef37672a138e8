"""Correct for every input the task's generate_input produces (contiguous square float32 matrices
of any size): it adds the flat storage, so a strided view would be read wrongly, but no such view is
in the task's contract. The layout probe's failure is advisory (an info item), not a fail.
Expect: builds=pass, correctness=pass, generality=pass
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
