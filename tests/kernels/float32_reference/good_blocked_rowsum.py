"""Correct row sum in the Triton tutorial's style: one program per row, a BLOCK-wide fp32 accumulator
over the row, then tl.sum. Its summation order differs from NumPy's, so several of the row sums
(those near zero, after cancellation) sit just outside the default fp32 tolerance, by about the
reference's own error against float64. With no float64 reference to tell, that is unverified with the
numbers, never a failure.
Expect: builds=pass, correctness=unverified
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
        row_sum_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024)
        return y
