"""Row sum whose loop stops one block early (`range(0, n_cols - BLOCK, BLOCK)`, a classic off-by-one):
the last 1,024 elements of every row are never added, so every sum is off by tens: far beyond the
rounding bound of a 32,768-term sum, so it fails even without a float64 reference.
Expect: builds=pass, correctness=fail
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols - BLOCK, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
        row_sum_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024)
        return y
