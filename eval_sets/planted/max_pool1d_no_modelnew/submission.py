"""1-D max pooling in Triton: one program per (batch, channel) row, a block of output positions,
the window walked with -inf padding."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def max_pool1d_kernel(x_ptr, y_ptr, L, OL, K, S, P, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    omask = offs < OL
    acc = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    for k in range(K):
        pos = offs * S - P + k
        m = omask & (pos >= 0) & (pos < L)
        v = tl.load(x_ptr + row * L + pos, mask=m, other=-float("inf")).to(tl.float32)
        acc = tl.maximum(acc, v, propagate_nan=tl.PropagateNan.ALL)
    tl.store(y_ptr + row * OL + offs, acc, mask=omask)


class TritonMaxPool1d(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, c, length = x.shape
        out_len = (length + 2 * self.padding - self.kernel_size) // self.stride + 1
        x = x.contiguous()
        y = torch.empty((n, c, out_len), dtype=x.dtype, device=x.device)
        block = min(triton.next_power_of_2(out_len), 256)
        max_pool1d_kernel[(n * c, triton.cdiv(out_len, block))](x, y, length, out_len, self.kernel_size, self.stride,
                                                                self.padding, BLOCK=block)
        return y
