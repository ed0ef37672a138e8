"""Column sums that walk down the rows a tile at a time: each load reads BLOCK consecutive columns
of one row, so consecutive threads touch consecutive addresses and Triton emits 16-byte vector
loads (ld.global.v4.b32). False-positive guard for the compiled-code review.

Expect: builds=pass, resources=pass
Compiled: none
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def colsum_kernel(x_ptr, y_ptr, M, N, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for r in range(0, M):
        acc += tl.load(x_ptr + r * N + cols, mask=cols < N, other=0.0)
    tl.store(y_ptr + cols, acc, mask=cols < N)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty(N, dtype=x.dtype, device=x.device)
        colsum_kernel[(triton.cdiv(N, 512),)](x, y, M, N, BLOCK=512, num_warps=4)
        return y
