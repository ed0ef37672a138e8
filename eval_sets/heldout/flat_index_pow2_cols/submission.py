import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(x_ptr, b_ptr, y_ptr, n_elements, N, BLOCK: tl.constexpr, N_POW2: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    col = offs & (N_POW2 - 1)
    x = tl.load(x_ptr + offs, mask=mask)
    b = tl.load(b_ptr + col, mask=mask & (col < N))
    y = x + b
    y = tl.where((y > 0) | (y != y), y, 0.0)  # keep NaN like torch.relu
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, out_features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        N = x.shape[-1]
        BLOCK = 1024
        bias_relu_kernel[(triton.cdiv(n, BLOCK),)](x, self.bias, y, n, N, BLOCK=BLOCK,
                                                   N_POW2=triton.next_power_of_2(N))
        return y
