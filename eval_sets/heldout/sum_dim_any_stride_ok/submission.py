import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_axis_kernel(x_ptr, out_ptr, R, C, sx_o, sx_r, sx_c, so_o, so_c,
                    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    # one program per (outer index, block of inner columns); the reduced axis is walked in BLOCK_R steps
    o = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    cmask = cols < C
    acc = tl.zeros((BLOCK_R, BLOCK_C), dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        m = (rows[:, None] < R) & cmask[None, :]
        acc += tl.load(x_ptr + o * sx_o + rows[:, None] * sx_r + cols[None, :] * sx_c, mask=m, other=0.0)
    tl.store(out_ptr + o * so_o + cols * so_c, tl.sum(acc, axis=0), mask=cmask)


class ModelNew(nn.Module):
    """Any reduced axis: the input is seen as (outer, R, inner) through its own strides when those
    allow it (no copy), otherwise through a contiguous copy."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d = self.dim % x.dim()
        out_shape = list(x.shape)
        out_shape[d] = 1
        R = x.shape[d]
        outer = 1
        for s in x.shape[:d]:
            outer *= s
        inner = 1
        for s in x.shape[d + 1:]:
            inner *= s
        try:
            x3 = x.view(outer, R, inner)
        except RuntimeError:
            x3 = x.contiguous().view(outer, R, inner)
        out = torch.empty((outer, inner), device=x.device, dtype=x.dtype)
        BLOCK_C = 32
        grid = (outer, triton.cdiv(inner, BLOCK_C))
        sum_axis_kernel[grid](x3, out, R, inner, x3.stride(0), x3.stride(1), x3.stride(2),
                              out.stride(0), out.stride(1), BLOCK_R=16, BLOCK_C=BLOCK_C)
        return out.view(out_shape)
