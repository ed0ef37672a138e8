import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def max_dim1_kernel(x_ptr, out_ptr, R, C, stride_b, stride_r, stride_c, out_stride_b,
                    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(0)
    pid_c = tl.program_id(1)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    col_mask = cols < C
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    nan_seen = tl.zeros((BLOCK_C,), dtype=tl.int32)
    for r0 in range(0, R, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        mask = (rows[:, None] < R) & col_mask[None, :]
        ptrs = x_ptr + pid_b * stride_b + rows[:, None] * stride_r + cols[None, :] * stride_c
        x = tl.load(ptrs, mask=mask, other=-float("inf"))
        nan_seen = tl.maximum(nan_seen, tl.max((x != x).to(tl.int32), axis=0))
        acc = tl.maximum(acc, tl.max(x, axis=0))
    # tl.max skips NaN; torch.max returns NaN for a column holding one
    acc = tl.where(nan_seen > 0, float("nan"), acc)
    tl.store(out_ptr + pid_b * out_stride_b + cols, acc, mask=col_mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert self.dim == 1
        B, R, C = x.shape
        out = torch.empty((B, C), device=x.device, dtype=x.dtype)
        BLOCK_C = 32
        grid = (B, triton.cdiv(C, BLOCK_C))
        max_dim1_kernel[grid](x, out, R, C, x.stride(0), x.stride(1), x.stride(2), out.stride(0),
                              BLOCK_R=16, BLOCK_C=BLOCK_C)
        return out
