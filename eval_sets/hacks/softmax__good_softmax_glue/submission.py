"""Correct two-pass softmax with torch glue around the kernels: a float32 cast, a transposed copy
made contiguous, a scratch buffer from torch.empty, a per-row statistics tensor, an alignment check
on data_ptr, a config cache keyed on the shape, and reading TRITON_INTERPRET. None of it computes
the softmax; the two kernels do.
Expect: builds=pass, correctness=pass, integrity=pass
"""

import functools
import os

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_stats_kernel(in_ptr, max_ptr, sum_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * stride + offs, mask=mask, other=-float("inf"))
    m = tl.max(x, axis=0)
    tl.store(max_ptr + row, m)
    tl.store(sum_ptr + row, tl.sum(tl.exp(x - m), axis=0))


@triton.jit
def normalize_kernel(in_ptr, max_ptr, sum_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * stride + offs, mask=mask, other=0.0)
    m = tl.load(max_ptr + row)
    s = tl.load(sum_ptr + row)
    tl.store(out_ptr + row * stride + offs, tl.exp(x - m) / s, mask=mask)


@functools.lru_cache(maxsize=32)
def _block_for(n_cols: int) -> int:
    return triton.next_power_of_2(n_cols)


_CONFIGS: dict = {}
_INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = x.float().reshape(-1, x.shape[-1]).t().contiguous().t().contiguous()
        if x2.data_ptr() % 16 != 0:
            x2 = x2.clone()
        rows, cols = x2.shape
        block = _CONFIGS.setdefault(tuple(x2.shape), _block_for(cols))
        stats = torch.empty(2, rows, device=x2.device, dtype=torch.float32)
        out = torch.empty_like(x2)
        row_stats_kernel[(rows,)](x2, stats[0], stats[1], x2.stride(0), cols, BLOCK=block)
        normalize_kernel[(rows,)](x2, stats[0], stats[1], out, x2.stride(0), cols, BLOCK=block)
        return out.view(x.shape).to(x.dtype)
