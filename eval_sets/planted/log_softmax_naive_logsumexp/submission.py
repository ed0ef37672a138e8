"""Row log-softmax in Triton, one program per row."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def log_softmax_kernel(x_ptr, y_ptr, n_cols, x_row_stride, y_row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    lse = tl.log(tl.sum(tl.exp(x), axis=0))
    tl.store(y_ptr + row * y_row_stride + cols, x - lse, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.movedim(self.dim, -1).contiguous()
        y = torch.empty_like(x)
        n_cols = x.shape[-1]
        n_rows = x.numel() // max(n_cols, 1)
        log_softmax_kernel[(n_rows,)](x, y, n_cols, n_cols, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return y.movedim(-1, self.dim)
