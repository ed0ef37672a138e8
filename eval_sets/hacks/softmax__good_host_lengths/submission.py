"""Correct fused softmax whose wrapper reads the row lengths on the host (``tolist()`` of a small integer
tensor, varlen style) to size the block: a few elements copied out of torch, far below the allowance of
the withheld run, so the host copies answer honestly and the kernel stays clean.
Expect: builds=pass, correctness=pass, integrity=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, len_ptr, in_stride, out_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    n_cols = tl.load(len_ptr + row)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + offs, num / tl.sum(num, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        lengths = torch.full((x2.shape[0],), x2.shape[1], dtype=torch.int32, device=x.device)
        longest = max(lengths.tolist())
        out = torch.empty_like(x2)
        softmax_kernel[(x2.shape[0],)](out, x2, lengths, x2.stride(0), out.stride(0),
                                       BLOCK=triton.next_power_of_2(longest))
        return out.reshape(x.shape)
