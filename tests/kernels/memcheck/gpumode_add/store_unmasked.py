"""GPU MODE submission whose store has no tail mask: sizes 100 and 1000 in tests: are not multiples
of BLOCK=128, so the last program writes past the end of the output. Under the interpreter the
writes land in guard zones, never in the heap: the call runs (builds passes every time) and memcheck
fails correctness.
Expect: builds=pass, correctness=fail, overall=reject
Defects: oob_store
"""

import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a + b)


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    out = torch.empty_like(a)
    add_kernel[(triton.cdiv(a.numel(), 128),)](a, b, out, a.numel(), BLOCK=128)
    return out
