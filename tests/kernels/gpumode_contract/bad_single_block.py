"""One program over one 8192-element block, masked: correct up to 90x90 (the task's test sizes 64
and 65 pass) and silently drops everything past 8192 elements for larger sizes, which the task's
own generate_input produces (its benchmark size is 1024). Sizes are the generator's own keyword
arguments, so this is in scope for a GPU MODE task: generality fails.
Expect: builds=pass, correctness=pass, generality=fail, overall=reject
"""

import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)


def custom_kernel(data: input_t) -> output_t:
    a, b, out = data
    add_kernel[(1,)](a, b, out, a.numel(), BLOCK=8192)
    return out
