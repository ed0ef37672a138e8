"""RMSNorm over the last axis in Triton, one program per row, the row in one block, float32 statistics."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, y_ptr, n_cols, x_row_stride, y_row_stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / n_cols
    tl.store(y_ptr + row * y_row_stride + cols, x / tl.sqrt(ms + eps), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, eps: float = 1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        y = torch.empty_like(x2)
        rms_norm_kernel[(x2.shape[0],)](x2, y, n_cols, x2.stride(0), y.stride(0), self.eps,
                                        BLOCK=triton.next_power_of_2(n_cols))
        return y.reshape(x.shape)
