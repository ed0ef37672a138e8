"""A Triton GELU that silently uses the tanh approximation while the reference is the exact erf
GELU: differences reach ~5e-4, far outside fp32 tolerance. Expected verdict: reject
(correctness: fail, with the worst element and its error).
Expect: builds=pass, correctness=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    tanh_u = 1.0 - 2.0 / (tl.exp(2.0 * u) + 1.0)
    tl.store(out_ptr + offs, 0.5 * x * (1.0 + tanh_u), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
