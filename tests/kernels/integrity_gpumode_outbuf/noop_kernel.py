"""A kernel that does nothing: the store's mask is never true (`offs < 0` where `offs < n` was meant),
so c is returned as it came from torch.empty. A wrong answer for correctness; the integrity tool must
not crash on an output with no finite element (it once raised TypeError formatting its constant value).
Expect: builds=pass, correctness=fail, integrity=pass
"""

import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def fill_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(a_ptr + offs, mask=offs < n, other=0.0)
    tl.store(c_ptr + offs, x, mask=offs < 0)


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    n = c.numel()
    fill_kernel[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)
    return c
