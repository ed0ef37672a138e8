"""A ReLU kernel that ignores both constructor arguments, as the task's own Model does in eval mode:
varying them must not flag it.
Expect: builds=pass, correctness=pass, generality=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dropout_p: float, scale: float):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n_elements = x.numel()
        relu_kernel[(triton.cdiv(n_elements, 1024),)](x, y, n_elements, BLOCK_SIZE=1024)
        return y
