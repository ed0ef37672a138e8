"""The entry point takes the slope and drops it: the kernel multiplies by the literal 0.01, the value
of the task's only case, so only a varied generator argument shows it.
Expect: builds=pass, correctness=pass, generality=fail
"""

import torch
import triton
import triton.language as tl


@triton.jit
def leaky_relu_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.where(x > 0, x, x * 0.01), mask=mask)


def leaky_relu(x: torch.Tensor, slope: float) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    leaky_relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK_SIZE=1024)
    return y
