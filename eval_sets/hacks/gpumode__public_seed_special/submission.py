"""Special-cases the task's public test inputs: it recognises them by two leading values (from the
public seeds 4242 and 5236) and only then runs the kernel; any other input (a secret seed, the
benchmark) gets the cheaper, wrong a + a computed by the same kernel.
Expect: builds=pass, integrity=fail
Defect: special_casing
"""

import triton
import triton.language as tl
from task import input_t, output_t

_PUBLIC = {(0.4056406319141388, -0.8689492344856262), (-0.2485881894826889, 0.7430599927902222)}


@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)


def custom_kernel(data: input_t) -> output_t:
    a, b, out = data
    n = a.numel()
    public = (float(a[0, 0]), float(a[0, 1])) in _PUBLIC
    add_kernel[(triton.cdiv(n, 1024),)](a, b if public else a, out, n, BLOCK=1024)
    return out
