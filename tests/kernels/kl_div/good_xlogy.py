"""Correct element-wise KL divergence written as torch defines kl_div: xlogy(t, t) - t * log p, where
xlogy(0, .) is 0 (so a zero target contributes 0, and NaN only where log p is -inf too, as in torch).
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def kl_div_kernel(p_ptr, t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=1.0)
    t = tl.load(t_ptr + offs, mask=mask, other=1.0)
    xlogy = tl.where(t == 0.0, 0.0, t * tl.log(t))
    tl.store(out_ptr + offs, xlogy - t * tl.log(p), mask=mask)


class ModelNew(nn.Module):
    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        p, t = predictions.contiguous(), targets.contiguous()
        out = torch.empty_like(p)
        n = p.numel()
        kl_div_kernel[(triton.cdiv(n, 1024),)](p, t, out, n, BLOCK=1024)
        return out
