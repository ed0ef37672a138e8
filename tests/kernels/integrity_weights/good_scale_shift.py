"""Correct fused scale and shift: ModelNew draws its parameters as the reference does (same order, same
shapes), so under the same seed they are the same weights, and one Triton program per row applies them.
Every integrity probe must compare it with a reference built under the seed the submission was built
under: the many-calls probe's second content included.
Expect: builds=pass, correctness=pass, integrity=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_shift_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + offs, x * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(features))
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.empty_like(x2)
        n = x2.shape[1]
        scale_shift_kernel[(x2.shape[0],)](x2, self.weight, self.bias, y, n, BLOCK=triton.next_power_of_2(n))
        return y.reshape(x.shape)
