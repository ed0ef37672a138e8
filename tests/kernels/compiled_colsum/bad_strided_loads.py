"""Column sums with one program per column, each loading the whole column at once: thread i reads
row i, so consecutive threads are N*4 bytes apart. Every load is a scalar 4-byte ld.global (no
vectorisation) and a warp touches 32 different memory segments per instruction (uncoalesced).
Correct, but it moves many times the bytes it needs through the memory system.

Expect: builds=pass, resources=pass
Compiled: strided_access
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def colsum_kernel(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr):
    col = tl.program_id(0)
    rows = tl.arange(0, BLOCK_M)
    x = tl.load(x_ptr + rows * N + col, mask=rows < M, other=0.0)
    tl.store(y_ptr + col, tl.sum(x, axis=0))


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty(N, dtype=x.dtype, device=x.device)
        colsum_kernel[(N,)](x, y, M, N, BLOCK_M=triton.next_power_of_2(M), num_warps=4)
        return y
