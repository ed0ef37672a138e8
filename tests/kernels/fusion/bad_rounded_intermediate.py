"""The fused chain computed in float16 throughout: every intermediate is rounded to half precision,
exactly like the unfused eager chain, so it inherits the chain's rounding error instead of the
float32 accuracy a fused kernel can give. Correct within fp16 tolerance; the fusion check says which
rounding it does.

Expect: builds=pass
Fusion: rounds_like_unfused_chain
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def chain_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    w = tl.load(w_ptr + offs, mask=m)
    b = tl.load(b_ptr + offs, mask=m)
    y = (x * w + b) * x
    tl.store(y_ptr + offs, y.to(tl.float16), mask=m)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        chain_kernel[(triton.cdiv(x.numel(), 1024),)](x, w, b, y, x.numel(), BLOCK=1024)
        return y
