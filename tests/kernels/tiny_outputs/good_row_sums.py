"""Correct two-pass softmax for inputs in [0, 1) (no max subtraction needed): one program per row sums
exp(x) into its own slot, a second pass divides. Its outputs are all below the default atol; it must
pass on the relative comparison the vacuous atol is replaced by.
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, sum_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=-float("inf"))
        acc += tl.exp(x)
    tl.atomic_add(sum_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def normalize_kernel(x_ptr, sum_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = tl.load(sum_ptr + row)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
        tl.store(y_ptr + row * n_cols + offs, tl.exp(x) / total, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        sums = torch.zeros(rows, device=x.device, dtype=torch.float32)
        y = torch.empty_like(x)
        row_sum_kernel[(rows,)](x, sums, cols, BLOCK=16384)
        normalize_kernel[(rows,)](x, sums, y, cols, BLOCK=16384)
        return y
