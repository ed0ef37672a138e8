"""Two-pass softmax whose normaliser is the sum over the whole tensor: every row adds its sum of exp(x)
into one shared slot (`sum_ptr`, not `sum_ptr + row`), so every output is about 1/batch (here 1/4) of
the right value: wrong by 75 % on every element, yet inside atol 1e-5 everywhere. Correctness must fail it.
Expect: builds=pass, correctness=fail
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
    tl.atomic_add(sum_ptr, tl.sum(acc, axis=0))


@triton.jit
def normalize_kernel(x_ptr, sum_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = tl.load(sum_ptr)
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
