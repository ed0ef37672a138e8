"""Correct Triton softmax whose launch helper comes from its own ``tools`` package
(``from tools.launch import next_pow2``), a name the reviewer's own package also has.
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl
from tools.launch import next_pow2

import tools


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


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert tools.OWNER == "task"
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        out = torch.empty_like(x2)
        softmax_kernel[(x2.shape[0],)](out, x2, x2.stride(0), out.stride(0), n_cols,
                                       BLOCK_SIZE=next_pow2(n_cols))
        return out.reshape(x.shape)
