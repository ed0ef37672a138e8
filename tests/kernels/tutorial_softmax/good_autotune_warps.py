"""Softmax with the row in one block and the launch width autotuned, as the tutorials autotune:
several configs keyed on the row length, each of them correct.

Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.autotune(
    configs=[triton.Config({}, num_warps=w) for w in (2, 4, 8)],
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
        row_softmax[(n_rows,)](out, x2, x2.stride(0), n_cols, BLOCK_SIZE=triton.next_power_of_2(n_cols))
        return out.reshape(x.shape)
