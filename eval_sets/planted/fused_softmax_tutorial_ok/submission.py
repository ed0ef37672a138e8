"""Fused softmax in the style of the Triton tutorial: a fixed number of programs, each striding over
rows, the row held in one power-of-two block with -inf padding. Row and column strides are passed,
so strided inputs need no copy."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fused_softmax_kernel(out_ptr, in_ptr, in_row_stride, in_col_stride, out_row_stride, n_rows, n_cols,
                         BLOCK: tl.constexpr):
    first = tl.program_id(0)
    step = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    for row in tl.range(first, n_rows, step):
        x = tl.load(in_ptr + row * in_row_stride + cols * in_col_stride, mask=mask,
                    other=-float("inf")).to(tl.float32)
        shifted = x - tl.max(x, axis=0)
        num = tl.exp(shifted)
        tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_rows, n_cols = x.shape
        out = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
        programs = min(n_rows, 8)
        fused_softmax_kernel[(programs,)](out, x, x.stride(0), x.stride(1), out.stride(0), n_rows, n_cols,
                                          BLOCK=triton.next_power_of_2(n_cols))
        return out
