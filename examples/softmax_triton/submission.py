"""A correct fused softmax in Triton: one program per row, the row held in one block, max
subtracted before exp, masked tail. Expected verdict: accept on CPU for the criteria that can be
checked there (performance stays unverified without a GPU).
Expect: builds=pass, correctness=pass, integrity=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_row_stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + offs, num / den, mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    n_cols = x.shape[-1]
    x2 = x.reshape(-1, n_cols).contiguous()
    out = torch.empty_like(x2)
    block = triton.next_power_of_2(n_cols)
    softmax_kernel[(x2.shape[0],)](out, x2, x2.stride(0), out.stride(0), n_cols, BLOCK_SIZE=block)
    return out.reshape(x.shape)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return softmax(x)
