"""Row sum in Triton that gives each thread a row and walks the columns: correct, but at every step
consecutive threads read addresses a whole row apart (stride = cols * 4 bytes), so no load is
vectorised or coalesced. The compiled-code review shows it as a strided access.
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, y_ptr, rows, cols, stride_row, BLOCK_ROWS: tl.constexpr):
    r = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    acc = tl.zeros((BLOCK_ROWS,), dtype=tl.float32)
    for c in range(0, cols):
        acc += tl.load(x_ptr + r * stride_row + c, mask=r < rows, other=0.0)
    tl.store(y_ptr + r, acc, mask=r < rows)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty((rows, 1), dtype=x.dtype, device=x.device)
        rowsum_kernel[(triton.cdiv(rows, 64),)](x, y, rows, cols, x.stride(0), BLOCK_ROWS=64, num_warps=2)
        return y
