"""Row sum in Triton, one program per row: the row is read in 512-column blocks, each a contiguous
range, so consecutive threads touch consecutive addresses and the loads are 16-byte vectors.
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, y_ptr, cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        c = start + offs
        acc += tl.load(x_ptr + row * stride_row + c, mask=c < cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty((rows, 1), dtype=x.dtype, device=x.device)
        rowsum_kernel[(rows,)](x, y, cols, x.stride(0), BLOCK=512, num_warps=4)
        return y
