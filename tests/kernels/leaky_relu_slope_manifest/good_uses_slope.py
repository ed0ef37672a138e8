"""The slope argument reaches the kernel: right for any slope the generator is given.
Expect: builds=pass, correctness=pass, generality=pass
"""

import torch
import triton
import triton.language as tl


@triton.jit
def leaky_relu_kernel(x_ptr, y_ptr, n_elements, slope, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.where(x > 0, x, x * slope), mask=mask)


def leaky_relu(x: torch.Tensor, slope: float) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    leaky_relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, slope, BLOCK_SIZE=1024)
    return y
