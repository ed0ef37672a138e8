import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, n_cols, stride_xr, stride_xc, stride_yr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    carry = tl.zeros((), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_xr + cols * stride_xc, mask=mask, other=0.0).to(tl.float32)
        y = tl.cumsum(x, axis=0) + carry
        tl.store(y_ptr + row * stride_yr + cols, y, mask=mask)
        carry += tl.sum(x, axis=0)


class ModelNew(nn.Module):
    """Scan along the last axis in blocks of 64, carrying the running total from block to block;
    reads any strides, so no copy is made of a non-contiguous input."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.dim not in (1, -1) or x.dim() != 2:
            raise NotImplementedError("cumsum along the last axis of a 2-D tensor")
        y = torch.empty(x.shape, device=x.device, dtype=x.dtype)
        n_rows, n_cols = x.shape
        cumsum_kernel[(n_rows,)](x, y, n_cols, x.stride(0), x.stride(1), y.stride(0), BLOCK=64)
        return y
