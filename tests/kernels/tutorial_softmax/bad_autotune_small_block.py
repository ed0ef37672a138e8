"""Softmax whose kernel holds a whole row in one block, with BLOCK_SIZE autotuned: one of the configs
(BLOCK_SIZE=512) is smaller than the 781-column rows, so on a GPU where it wins the benchmark every
row is normalised over its first 512 columns only and the rest of the output is never written. The
first config (1024) is right, so only reviewing every config finds it.

Expect: builds=pass, correctness=fail
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_SIZE": 1024}, num_warps=4),
        triton.Config({"BLOCK_SIZE": 2048}, num_warps=8),
        triton.Config({"BLOCK_SIZE": 512}, num_warps=4),
    ],
    key=["n_cols"],
)
@triton.jit
def row_softmax(out_ptr, in_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    keep = cols < n_cols
    v = tl.load(in_ptr + row * stride + cols, mask=keep, other=-float("inf"))
    v = v - tl.max(v, axis=0)
    e = tl.exp(v)
    tl.store(out_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=keep)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = x.reshape(-1, x.shape[-1]).contiguous().to(DEVICE)
        out = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        row_softmax[(n_rows,)](out, x2, x2.stride(0), n_cols)
        return out.reshape(x.shape)
