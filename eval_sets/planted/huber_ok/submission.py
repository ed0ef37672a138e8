"""Smooth L1 (beta = 1) loss in one Triton program: 0.5 d^2 inside |d| < 1, |d| - 0.5 outside,
accumulated in float32 blocks and divided by the element count."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def huber_kernel(p_ptr, t_ptr, out_ptr, n, divisor, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        d = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32) - \
            tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        ad = tl.abs(d)
        acc += tl.where(ad < 1.0, 0.5 * d * d, ad - 0.5)
    tl.store(out_ptr, tl.sum(acc, axis=0) / divisor)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        p, t = predictions.contiguous(), targets.contiguous()
        out = torch.empty((), dtype=p.dtype, device=p.device)
        huber_kernel[(1,)](p, t, out, p.numel(), p.numel(), BLOCK=1024)
        return out
