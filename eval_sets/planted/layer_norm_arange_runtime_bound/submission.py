"""LayerNorm forward in Triton, one program per row."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, x_row_stride, y_row_stride, n_cols, eps):
    row = tl.program_id(0)
    cols = tl.arange(0, n_cols)
    x = tl.load(x_ptr + row * x_row_stride + cols).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = x - mean
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols).to(tl.float32)
    b = tl.load(b_ptr + cols).to(tl.float32)
    tl.store(y_ptr + row * y_row_stride + cols, d * rstd * w + b)


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))
        self.bias = nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        y = torch.empty_like(x2)
        layer_norm_fwd[(x2.shape[0],)](x2, y, self.weight, self.bias, x2.stride(0), y.stride(0), n_cols, self.eps)
        return y.reshape(x.shape)
